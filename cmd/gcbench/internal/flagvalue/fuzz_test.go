package flagvalue_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
)

// The fuzz tests of the values' parsers; their seed corpora run with
// every go test.

// FuzzList: a count list either fails, leaving the list as it was, or
// holds in-range, distinct items, one per comma-separated field, and its
// String parses back to it.
func FuzzList(f *testing.F) {
	for _, s := range []string{"1,2,4,8,16,32", "1", " 3 , 5", "1,,2", "2,2", "0", "4097", "-1", "x", "", ",", "1,2,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got []int
		v := flagvalue.NewList(&got, []int{9}, flagvalue.IntIn(1, 4096))
		if err := v.Set(s); err != nil {
			if !slices.Equal(got, []int{9}) {
				t.Fatalf("Set(%q) failed (%v) but changed the list to %v", s, err, got)
			}
			return
		}
		if len(got) != strings.Count(s, ",")+1 {
			t.Fatalf("Set(%q) = %v: want one item per field", s, got)
		}
		for i, n := range got {
			if n < 1 || n > 4096 || slices.Contains(got[:i], n) {
				t.Fatalf("Set(%q) = %v: item %d out of range or repeated", s, got, n)
			}
		}
		var again []int
		if err := flagvalue.NewList(&again, nil, flagvalue.IntIn(1, 4096)).Set(v.String()); err != nil || !slices.Equal(again, got) {
			t.Fatalf("String() = %q parses to %v, %v; want %v", v.String(), again, err, got)
		}
	})
}

// FuzzShard: a shard either fails, leaving the flag as it was, or gives
// 0 ≤ i < n, and its String parses back to the same shard.
func FuzzShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/4", "0/0", "1/", "/2", " 1 / 2 ", "a/b", "0/1/2", "9223372036854775807/9223372036854775807", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var i, n int
		v := flagvalue.NewShard(&i, &n)
		if err := v.Set(s); err != nil {
			if i != 0 || n != 1 {
				t.Fatalf("Set(%q) failed (%v) but changed the shard to %d/%d", s, err, i, n)
			}
			return
		}
		if n < 1 || i < 0 || i >= n {
			t.Fatalf("Set(%q) = %d/%d", s, i, n)
		}
		var i2, n2 int
		if err := flagvalue.NewShard(&i2, &n2).Set(v.String()); err != nil || i2 != i || n2 != n {
			t.Fatalf("String() = %q parses to %d/%d, %v; want %d/%d", v.String(), i2, n2, err, i, n)
		}
	})
}

// FuzzEnum: a name flag either fails with the names it wants, leaving
// the value as it was, or holds a named value whose String parses back
// to it.
func FuzzEnum(f *testing.F) {
	for _, s := range []string{"red", " Blue ", "GRÜN", "grün", "mauve", "", "red,green", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var c color
		v := flagvalue.NewEnum(&c, 2, parseColor, colors.List())
		if err := v.Set(s); err != nil {
			if c != 2 || err.Error() != "want red, green or blue" {
				t.Fatalf("Set(%q) failed (%v) and left %v", s, err, c)
			}
			return
		}
		if !colors.Valid(c) {
			t.Fatalf("Set(%q) = %v, which has no name", s, c)
		}
		var back color
		if err := flagvalue.NewEnum(&back, 0, parseColor, colors.List()).Set(v.String()); err != nil || back != c {
			t.Fatalf("String() = %q parses to %v, %v; want %v", v.String(), back, err, c)
		}
	})
}
