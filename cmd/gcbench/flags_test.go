package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gcbench/gcbench/render"
	"github.com/spf13/pflag"
)

func TestParseSizeAccepts(t *testing.T) {
	tests := map[string]int64{
		"2.5GiB": 2684354560, "2560MiB": 2684354560, "2.5gib": 2684354560, "2.5 GiB": 2684354560, "2.5Gi": 2684354560,
		"1GB": 1e9, "1gb": 1e9, "1G": 1e9, "1.5KB": 1500, "4MiB": 4 << 20, "4096": 4096, "7B": 7, " 1KiB ": 1024,
		"0.5KiB": 512, "1TiB": 1 << 40, "0001MB": 1e6, "9223372036854775807": 1<<63 - 1, "2.000MiB": 2 << 20,
	}
	for in, want := range tests {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseSizeRejects(t *testing.T) {
	tests := map[string]string{
		"":                      "empty",
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
		_, err := parseSize(in)
		if !errors.Is(err, errSize) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseSize(%q) = %v; want an errSize mentioning %q", in, err, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := map[int64]string{
		2684354560: "2.5GiB", 1 << 30: "1GiB", 4 << 20: "4MiB", 1e9: "1GB", 1000: "1KB", 1001: "1.001KB", 1234567: "1234567B", 1 << 50: "1125899906842624B",
		1536: "1.5KiB", 1: "1B", 1<<63 - 1: "9223372036854775807B",
	}
	for in, want := range tests {
		if got := formatSize(in); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseSize checks that the parser never panics, accepts only positive
// whole byte counts, and agrees with formatSize in both directions.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2.5GiB", "2560MiB", "1GB", "1.5B", "-1", "0", "1e9", "999999999999TiB", "4 mib"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			if !errors.Is(err, errSize) {
				t.Fatalf("parseSize(%q): error %v does not wrap errSize", s, err)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("parseSize(%q) = %d, want > 0", s, n)
		}
		if !utf8.ValidString(s) || len(strings.TrimSpace(s)) > maxSizeLen {
			t.Fatalf("parseSize accepted %q", s)
		}
		out := formatSize(n)
		if back, err := parseSize(out); err != nil || back != n {
			t.Fatalf("parseSize(formatSize(%d) = %q) = %d, %v", n, out, back, err)
		}
	})
}

func TestSizeFlagNamesFlagAndValue(t *testing.T) {
	var major int64
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.Var(newSizeValue(&major, 5<<20, 8<<30), "major-heap", "heap")
	if err := fs.Parse([]string{"--major-heap", "2560MiB"}); err != nil || major != 2560<<20 {
		t.Fatalf("Parse = %v, major = %d", err, major)
	}
	err := fs.Parse([]string{"--major-heap", "9GiB"})
	if err == nil || !strings.Contains(err.Error(), "--major-heap") || !strings.Contains(err.Error(), "9GiB") ||
		!strings.Contains(err.Error(), "available memory (8.0 GiB)") {
		t.Errorf("over the limit: %v", err)
	}
	if got := fs.Lookup("major-heap").DefValue; got != "5MiB" {
		t.Errorf("default shown as %q", got)
	}
}

func TestAvailableMemory(t *testing.T) {
	if availableMemory() <= 0 {
		t.Error("availableMemory() = 0 on Linux")
	}
}

func TestFormatValue(t *testing.T) {
	var f render.Format
	v := formatValue{&f}
	if err := v.Set("CSV"); err != nil || f != render.CSV || v.String() != "csv" {
		t.Errorf("Set(CSV): %v, %v", err, f)
	}
	if err := v.Set("yaml"); err == nil || !strings.Contains(err.Error(), "text, markdown, csv, json") {
		t.Errorf("Set(yaml) = %v", err)
	}
	for name, want := range map[string]render.Format{"a.JSON": render.JSON, "b.csv": render.CSV, "c.md": render.Markdown, "d": render.Text} {
		if got := formatForFile(name); got != want {
			t.Errorf("formatForFile(%q) = %v", name, got)
		}
	}
}

// TestEveryShownDefaultIsAccepted: the default each command's --help shows
// for a flag is a value that flag accepts (sweep's --shard showed 0/0,
// which it refuses).
func TestEveryShownDefaultIsAccepted(t *testing.T) {
	shown := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z-]+) \S+ .*\(default "?([^"()]+)"?\)$`)
	for name := range commands {
		stdout, stderr, code := runBinary(t, name, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", name, code, stderr)
		}
		for _, line := range strings.Split(unwrapHelp(stdout), "\n") {
			m := shown.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			_, stderr, code := runBinary(t, name, "--"+m[1], m[2], "--help")
			if code != 0 {
				t.Errorf("%s --%s %s (its shown default): exit %d: %s", name, m[1], m[2], code, stderr)
			}
		}
	}
}
