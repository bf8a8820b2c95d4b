package main

import (
	"slices"
	"strings"
	"testing"
)

// The fuzz tests of the CLI's small parsers: list and shard flags, and the
// kernel files gcbench reads. Their seed corpora run with every go test.

// FuzzListValue: a count list either fails or holds in-range, distinct
// items, one per comma-separated field, and its String parses back to it.
func FuzzListValue(f *testing.F) {
	for _, s := range []string{"1,2,4,8,16,32", "1", " 3 , 5", "1,,2", "2,2", "0", "4097", "-1", "x", "", ",", "1,2,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got []int
		v := newListValue(&got, []int{9}, boundedInt(1, 4096), "counts")
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
		if err := newListValue(&again, nil, boundedInt(1, 4096), "counts").Set(v.String()); err != nil || !slices.Equal(again, got) {
			t.Fatalf("String() = %q parses to %v, %v; want %v", v.String(), again, err, got)
		}
	})
}

// FuzzShardValue: --shard either fails, leaving the flag as it was, or
// gives 0 ≤ i < n, and its String parses back to the same shard.
func FuzzShardValue(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/4", "0/0", "1/", "/2", " 1 / 2 ", "a/b", "0/1/2", "9223372036854775807/9223372036854775807", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n := 7, 8
		v := &shardValue{&i, &n}
		if err := v.Set(s); err != nil {
			if i != 7 || n != 8 {
				t.Fatalf("Set(%q) failed (%v) but changed the shard to %d/%d", s, err, i, n)
			}
			return
		}
		if n < 1 || i < 0 || i >= n {
			t.Fatalf("Set(%q) = %d/%d", s, i, n)
		}
		i2, n2 := 0, 1
		if err := (&shardValue{&i2, &n2}).Set(v.String()); err != nil || i2 != i || n2 != n {
			t.Fatalf("String() = %q parses to %d/%d, %v; want %d/%d", v.String(), i2, n2, err, i, n)
		}
	})
}
