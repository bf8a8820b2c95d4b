package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/render"
	"github.com/spf13/pflag"
)

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

func TestFormatValue(t *testing.T) {
	var f render.Format
	v := formatValue{&f}
	if err := v.Set("CSV"); err != nil || f != render.CSV || v.String() != "csv" {
		t.Errorf("Set(CSV): %v, %v", err, f)
	}
	if err := v.Set("yaml"); err == nil || !strings.Contains(err.Error(), "text, markdown, csv, json") {
		t.Errorf("Set(yaml) = %v", err)
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
