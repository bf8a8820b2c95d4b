package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where the build has the native backend, run's default is SGen's own pool
// with mono's mutex kind, and the config line says so; a build without cgo
// (CGO_ENABLED=0 go test, as .ci/run runs it) refuses --backend native in one
// line, exit 2, and runs plain gcbench on Threads.
func TestRunDefaultBackendAndNativeAvailability(t *testing.T) {
	stdout, stderr, code := runBinary(t, runTiny...)
	require.Equal(t, 0, code, stderr)
	if workerpool.NativeAvailable {
		assert.Contains(t, stdout, "backend=native")
		assert.Contains(t, stdout, "mutex=pi")
		return
	}
	assert.Contains(t, stdout, "backend=threads")
	assert.NotContains(t, stdout, "mutex=")
	_, stderr, code = runBinary(t, tiny("--backend", "native")...)
	assert.Equal(t, 2, code)
	assert.Equal(t, "gcbench run: --backend native: want threads or goroutines (native needs a build with cgo, on Linux)\n", stderr)
}

func TestRunMutexIsTheNativeBackendsOnly(t *testing.T) {
	_, stderr, code := runBinary(t, tiny("--backend", "threads", "--mutex", "pi")...)
	assert.Equal(t, 2, code)
	assert.Equal(t, "gcbench run: --mutex pi: only the native backend has mutex kinds (this run's backend is threads)\n", stderr)
	_, stderr, code = runBinary(t, tiny("--mutex", "recursive")...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--mutex`)
	stdout, stderr, code := runBinary(t, tiny("--backend", "goroutines")...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "mutex=", "the Go backends have no mutex kind to report")
}

func TestNativeRunReportsItsMutexAndNoFutexCount(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the native backend needs cgo on Linux; this build has none")
	}
	for _, m := range []string{"normal", "pi", "adaptive"} {
		stdout, stderr, code := runBinary(t, tiny("--backend", "native", "--mutex", m, "--modes", "perjob,batch")...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "backend=native")
		assert.Contains(t, stdout, "mutex="+m)
		assert.Contains(t, stdout, "GOMAXPROCS 3", "auto GOMAXPROCS is workers+1 for native")
		line := lineWith(t, stdout, "futex calls")
		assert.Equal(t, []string{"futex", "calls", "n/a", "n/a", "n/a"}, strings.Fields(line), "native futex calls are not counted: n/a, never 0")
		line = lineWith(t, stdout, "enqueue-side lock acquisitions")
		assert.Equal(t, []string{"17.0", "1.0", "16.0"}, strings.Fields(line)[3:], "2 workers: 17 jobs per collection")
	}
}

// A sweep runs each native point once per --mutex kind, names the kind in
// the point's file and configuration, and runs the Go backends' points once.
func TestSweepMultipliesNativePointsOverMutexKinds(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the native backend needs cgo on Linux; this build has none")
	}
	dir := t.TempDir()
	_, stderr, code := runBinary(t, "sweep", "--dir", dir, "--workers", "2", "--wake", "broadcast", "--backend", "native,threads",
		"--mutex", "pi,normal", "--major-heap", "64MiB", "--los", "16MiB", "--nursery", "256KiB", "--gcs", "5", "--warmup", "1")
	require.Equal(t, 0, code, stderr)
	names := map[string]string{
		"workers2-broadcast-native-pi-major64MiB-los16MiB.json":     "pi",
		"workers2-broadcast-native-normal-major64MiB-los16MiB.json": "normal",
		"workers2-broadcast-threads-major64MiB-los16MiB.json":       "",
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, len(names))
	for name, mutex := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, "point %s", name)
		var doc struct {
			Config map[string]string `json:"config"`
		}
		require.NoError(t, json.Unmarshal(b, &doc))
		assert.Equal(t, mutex, doc.Config["mutex"], name)
	}
	_, stderr, code = runBinary(t, "sweep", "--dir", dir, "--backend", "threads", "--mutex", "pi")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--mutex: only the native backend has mutex kinds")
}

// A native run's JSON report carries the kernel's observables by their
// keys: the wake-ups' CPUs and the collector's preemptions always, the
// snapshot's four counts with --kernel-snapshot alone (absent without it,
// never 0), which the config line then shows; the anatomy lists each, n/a
// where uncounted. The Go backends refuse the flag.
func TestNativeRunReportsTheKernelsObservables(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the native backend needs cgo on Linux; this build has none")
	}
	atStart := []string{"asleep_on_mutex_at_start", "asleep_on_work_cond_at_start",
		"runnable_on_collector_cpu_at_start", "runnable_elsewhere_at_start"}
	for _, snap := range []bool{false, true} {
		args := tiny("--backend", "native", "--modes", "serial,batch", "--format", "json")
		if snap {
			args = append(args, "--kernel-snapshot")
		}
		stdout, stderr, code := runBinary(t, args...)
		require.Equal(t, 0, code, stderr)
		var doc struct {
			Config map[string]string `json:"config"`
			Runs   []struct {
				Modes []struct {
					Name         string             `json:"name"`
					CounterMeans map[string]float64 `json:"counter_means"`
				} `json:"modes"`
			} `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		if snap {
			assert.Equal(t, "true", doc.Config["kernel_snapshot"])
		} else {
			assert.NotContains(t, doc.Config, "kernel_snapshot", "shown only when set")
		}
		serial, batch := doc.Runs[0].Modes[0].CounterMeans, doc.Runs[0].Modes[1].CounterMeans
		for _, k := range append([]string{"collector_preemptions", "wakeups_on_collector_cpu", "wakeups_elsewhere"}, atStart...) {
			assert.NotContains(t, serial, k, "serial dispatches nothing: n/a")
		}
		for _, k := range []string{"collector_preemptions", "wakeups_on_collector_cpu", "wakeups_elsewhere"} {
			assert.Contains(t, batch, k)
		}
		for _, k := range atStart {
			if snap {
				assert.Contains(t, batch, k)
			} else {
				assert.NotContains(t, batch, k, "no snapshot: n/a, never 0")
			}
		}
	}
	stdout, stderr, code := runBinary(t, tiny("--backend", "native", "--modes", "serial,batch")...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"n/a", "n/a"}, strings.Fields(lineWith(t, stdout, "at Start: workers asleep on the mutex"))[7:9],
		"the anatomy shows an uncounted snapshot as n/a")

	_, stderr, code = runBinary(t, tiny("--backend", "threads", "--kernel-snapshot")...)
	assert.Equal(t, 2, code)
	assert.Equal(t, "gcbench run: --kernel-snapshot: only the native backend's workers are read (this run's backend is threads)\n", stderr)
}

func lineWith(t *testing.T, text, prefix string) string {
	t.Helper()
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("no line starts with %q in:\n%s", prefix, text)
	return ""
}

func TestVersionSaysWhetherNativeIsBuiltIn(t *testing.T) {
	stdout, stderr, code := runBinary(t, "version")
	require.Equal(t, 0, code, stderr)
	want := "native backend: not built in"
	if workerpool.NativeAvailable {
		want = "native backend: built in"
	}
	assert.Contains(t, stdout, want)
	assert.Contains(t, stdout, runtime.Version())
	_, stderr, code = runBinary(t, "version", "extra")
	assert.Equal(t, 2, code)
	assert.Equal(t, "gcbench version: unexpected argument \"extra\" (version takes only flags)\n", stderr)
}

// A sweep with --kernel-snapshot needs a native point to read.
func TestSweepKernelSnapshotNeedsTheNativeBackend(t *testing.T) {
	_, stderr, code := runBinary(t, "sweep", "--dir", t.TempDir(), "--backend", "threads,goroutines", "--kernel-snapshot")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--kernel-snapshot: only the native backend's workers are read, and --backend has no native")
}
