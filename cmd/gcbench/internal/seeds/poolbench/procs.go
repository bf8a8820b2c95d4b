package poolbench

import (
	"runtime"
	"slices"

	"github.com/gcbench/gcbench/workerpool"
)

// Procs is the GOMAXPROCS a run of opt wants, 0 where the runtime's own
// will do: workers + 1 when a backend on OS threads runs (Threads, Native),
// so that a woken worker thread never waits for a P (the submitting
// goroutine has one). Zero Workers and Backends are Compare's defaults.
func Procs(opt Options) int {
	backends := opt.Backends
	if len(backends) == 0 {
		backends = defaultBackends()
	}
	if !slices.Contains(backends, workerpool.Threads) && !slices.Contains(backends, workerpool.Native) {
		return 0
	}
	if opt.Workers == 0 {
		return runtime.GOMAXPROCS(0) + 1
	}
	return opt.Workers + 1
}
