// Package enum names the values of small integer enumerations: one table of
// names per type gives its String, its parser and its text marshalling, so
// every enum in gcbench spells, parses and refuses values the same way.
//
// Guarantees, for a Names[T] built by New:
//   - String(v) is v's name, or "Type(n)" for a value outside the table;
//   - Parse accepts exactly the names and aliases, ignoring case, and its
//     error lists every name once and wraps the sentinel given to New;
//   - Marshal refuses a value outside the table (with the same sentinel),
//     so an unnamed value never reaches a file;
//   - Unmarshal accepts what Parse accepts.
package enum

import (
	"fmt"
	"strings"
)

// Names is the name table of an enumeration T whose values are 0..len-1.
// Build it once, at package level, with New.
type Names[T ~int] struct {
	typ      string       // the Go type's name, for "Type(n)"
	what     string       // what a value is, in the user's words
	names    []string     // names[v] is v's canonical name
	aliases  map[string]T // other accepted spellings, lower case
	sentinel error        // wrapped by every error
}

// New returns the table for T: names[v] is the canonical name of T(v). typ
// is the type's Go name (for unknown values), what says what a value is in
// an error ("wake policy"), and sentinel, if not nil, is wrapped by every
// error the table returns.
func New[T ~int](typ, what string, sentinel error, names ...string) *Names[T] {
	return &Names[T]{typ: typ, what: what, names: names, sentinel: sentinel}
}

// Alias makes Parse accept alias as another spelling of v and returns n,
// so that it chains after New.
func (n *Names[T]) Alias(alias string, v T) *Names[T] {
	if n.aliases == nil {
		n.aliases = map[string]T{}
	}
	n.aliases[strings.ToLower(alias)] = v
	return n
}

// Valid reports whether v has a name.
func (n *Names[T]) Valid(v T) bool { return v >= 0 && int(v) < len(n.names) }

// String returns v's name, or "Type(n)" for a value without one.
func (n *Names[T]) String(v T) string {
	if n.Valid(v) {
		return n.names[v]
	}
	return fmt.Sprintf("%s(%d)", n.typ, int(v))
}

// List returns the canonical names in value order, as a new slice.
func (n *Names[T]) List() []string { return append([]string(nil), n.names...) }

// Values returns every named value in order, as a new slice.
func (n *Names[T]) Values() []T {
	vs := make([]T, len(n.names))
	for i := range vs {
		vs[i] = T(i)
	}
	return vs
}

// Want returns the names as an English list: "a, b or c".
func (n *Names[T]) Want() string { return Or(n.names) }

// Or joins names as an English list of choices: "a, b or c" ("" for none).
func Or(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Parse returns the value named s, ignoring case; any other s yields an
// error naming s and every accepted name.
func (n *Names[T]) Parse(s string) (T, error) {
	for v, name := range n.names {
		if strings.EqualFold(s, name) {
			return T(v), nil
		}
	}
	if v, ok := n.aliases[strings.ToLower(s)]; ok {
		return v, nil
	}
	return 0, n.errorf("unknown %s %q (want %s)", n.what, s, n.Want())
}

// Marshal returns v's name as text, or an error for a value without one.
func (n *Names[T]) Marshal(v T) ([]byte, error) {
	if !n.Valid(v) {
		return nil, n.errorf("%s %s has no name", n.what, n.String(v))
	}
	return []byte(n.names[v]), nil
}

// Unmarshal sets *v from a name Parse accepts.
func (n *Names[T]) Unmarshal(b []byte, v *T) error {
	x, err := n.Parse(string(b))
	if err != nil {
		return err
	}
	*v = x
	return nil
}

func (n *Names[T]) errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if n.sentinel != nil {
		return fmt.Errorf("%w: %w", n.sentinel, err)
	}
	return err
}
