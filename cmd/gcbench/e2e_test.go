package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"

	"go.uber.org/goleak"
)

// gcbenchBin is the gcbench binary built once for the package's end-to-end
// tests, which run it as a user would.
var gcbenchBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gcbench-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	gcbenchBin = filepath.Join(dir, "gcbench")
	// The build is bounded too: past buildBound, or on a signal that
	// ends the tests, go and the compilers it started are killed.
	build := exec.Command("go", "build", "-o", gcbenchBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := testwait.RunMain(build, buildBound); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: building gcbench (at most %v): %v\n", buildBound, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// buildBound is how long building gcbench may take: minutes on a busy
// 2-core machine with a cold cache.
const buildBound = 5 * time.Minute

// runBound is how long one run of the built gcbench may take in a test,
// which runs small settings that take seconds; past it gcbench is killed
// and the test fails with what it printed.
const runBound = 3 * time.Minute

// runBinary runs the built gcbench with args and returns what it printed
// and its exit status.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gcbenchBin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := testwait.Run(t, cmd, runBound)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("running gcbench %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}
