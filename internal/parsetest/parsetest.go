// Package parsetest checks the project's parsers of names (a backend, a
// wake policy, a mode, a format, ...) under go test -fuzz, as
// testing/fstest checks file systems: one property that every such parser
// must have, with the names it knows as the seed corpus.
package parsetest

import (
	"errors"
	"fmt"
	"testing"
)

// Fuzz fuzzes parse with names (the values it knows, spelled as String
// spells them) and extra seeds (aliases, near misses) as the corpus, and
// checks that every input either fails with an error wrapping invalid, or
// yields a value whose String parses back to that value. The names alone
// must all parse.
func Fuzz[T comparable](f *testing.F, parse func(string) (T, error), invalid error, names []T, extra ...string) {
	f.Helper()
	for _, v := range names {
		if got, err := parse(fmt.Sprint(v)); err != nil || got != v {
			f.Fatalf("parse(%q) = %v, %v; want %v", fmt.Sprint(v), got, err, v)
		}
		f.Add(fmt.Sprint(v))
	}
	for _, s := range append(extra, "", " ", "\x00") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parse(s)
		if err != nil {
			if !errors.Is(err, invalid) {
				t.Fatalf("parse(%q): %v does not wrap %v", s, err, invalid)
			}
			return
		}
		if back, err := parse(fmt.Sprint(v)); err != nil || back != v {
			t.Fatalf("parse(%q) = %v, whose name %q parses to %v, %v", s, v, fmt.Sprint(v), back, err)
		}
	})
}

// Names checks a package's list of the names its parser accepts: names
// spells values, in order, as String spells them, and each name parses
// back to its value, so that the list an error or a flag offers is the
// one the parser takes.
func Names[T comparable](t testing.TB, parse func(string) (T, error), names []string, values ...T) {
	t.Helper()
	if len(names) != len(values) {
		t.Fatalf("names %q: want %d, one per value %v", names, len(values), values)
	}
	for i, v := range values {
		if got, err := parse(names[i]); names[i] != fmt.Sprint(v) || err != nil || got != v {
			t.Errorf("names[%d] = %q parses to %v, %v; want %q, parsing to %v", i, names[i], got, err, fmt.Sprint(v), v)
		}
	}
}
