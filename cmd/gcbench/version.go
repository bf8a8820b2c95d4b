package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/gcbench/gcbench/workerpool"
)

const versionUsage = `usage: gcbench version

Prints gcbench's version (module version and VCS revision, when the build
recorded them), the Go toolchain and platform, and whether this build has
the native backend (SGen's pool in C on pthreads, which needs cgo on Linux).

flags:
`

// cmdVersion is `gcbench version`.
func cmdVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("version")
	if done, err := parseOnlyFlags(fs, args, e.stdout, versionUsage); done {
		return err
	}
	version, revision := "(unknown)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = " " + s.Value
			}
		}
	}
	native := "not built in (it needs cgo, a C compiler at build time, on Linux): run uses the threads backend"
	if workerpool.NativeAvailable {
		native = "built in: run's default, with the pi mutex"
	}
	_, err := fmt.Fprintf(e.stdout, "gcbench %s%s\n%s %s/%s\nnative backend: %s\n",
		version, revision, runtime.Version(), runtime.GOOS, runtime.GOARCH, native)
	return err
}
