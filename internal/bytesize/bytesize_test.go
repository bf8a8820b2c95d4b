package bytesize_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gcbench/gcbench/internal/bytesize"
)

func TestParseAccepts(t *testing.T) {
	tests := map[string]int64{
		"2.5GiB": 2684354560, "2560MiB": 2684354560, "2.5gib": 2684354560, "2.5 GiB": 2684354560, "2.5Gi": 2684354560,
		"1GB": 1e9, "1gb": 1e9, "1G": 1e9, "1.5KB": 1500, "4MiB": 4 << 20, "4096": 4096, "7B": 7, " 1KiB ": 1024,
		"0.5KiB": 512, "1TiB": 1 << 40, "0001MB": 1e6, "9223372036854775807": 1<<63 - 1, "2.000MiB": 2 << 20,
	}
	for in, want := range tests {
		got, err := bytesize.Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := map[string]string{
		"":                      "size is empty",
		"0":                     "positive",
		"0GiB":                  "positive",
		"0.0001B":               "whole number",
		"1.":                    "decimal point",
		"-1GiB":                 "positive",
		"1.5B":                  "whole number",
		"1.5":                   "whole number",
		"0.1KiB":                "whole number",
		"1e9":                   "unknown unit",
		"2.5XB":                 "unknown unit",
		"GiB":                   "number",
		"+1GiB":                 "number",
		"1.GiB":                 "decimal point",
		".5GiB":                 "number",
		"9223372036854775808":   "too large",
		"10000000TiB":           "too large",
		"1 2 GiB":               "unknown unit",
		strings.Repeat("9", 41): "too long",
	}
	for in, want := range tests {
		_, err := bytesize.Parse(in)
		if !errors.Is(err, bytesize.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an ErrInvalid mentioning %q", in, err, want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := map[int64]string{
		2684354560: "2.5GiB", 1 << 30: "1GiB", 4 << 20: "4MiB", 1e9: "1GB", 1000: "1KB", 1001: "1.001KB",
		1234567: "1234567B", 1 << 50: "1125899906842624B", 1536: "1.5KiB", 1: "1B", 0: "0B",
		1<<63 - 1: "9223372036854775807B", -1 << 30: "-1GiB", -5: "-5B", -1 << 63: "-9223372036854775808B",
		16 << 10: "16KiB", 64 << 40: "64TiB",
	}
	for in, want := range tests {
		if got := bytesize.Format(in); got != want {
			t.Errorf("Format(%d) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse checks that the parser never panics, accepts only positive
// whole byte counts, and agrees with Format in both directions.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2.5GiB", "2560MiB", "1GB", "1.5B", "-1", "0", "1e9", "999999999999TiB", "4 mib"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := bytesize.Parse(s)
		if err != nil {
			if !errors.Is(err, bytesize.ErrInvalid) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("Parse(%q) = %d, want > 0", s, n)
		}
		if !utf8.ValidString(s) || len(strings.TrimSpace(s)) > bytesize.MaxLen {
			t.Fatalf("Parse accepted %q", s)
		}
		out := bytesize.Format(n)
		if back, err := bytesize.Parse(out); err != nil || back != n {
			t.Fatalf("Parse(Format(%d) = %q) = %d, %v", n, out, back, err)
		}
	})
}
