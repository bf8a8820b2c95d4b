package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestEveryShownDefaultIsAccepted: the default each command's --help shows
// for a flag is a value that flag accepts (sweep's --shard showed 0/0,
// which it refuses).
func TestEveryShownDefaultIsAccepted(t *testing.T) {
	shown := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z-]+) \S+ .*\(default "?([^"()]+)"?\)$`)
	for name := range commands() {
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
