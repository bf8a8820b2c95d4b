package poolbench

import (
	"runtime"
	"testing"

	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
)

// TestProcsOnlyForOSThreads: a P per worker thread and one for the
// submitter where a backend runs on OS threads; the runtime's own
// (0) for goroutines alone.
func TestProcsOnlyForOSThreads(t *testing.T) {
	assert.Equal(t, 9, Procs(Options{Workers: 8, Backends: []workerpool.Backend{workerpool.Goroutines, workerpool.Native}}))
	assert.Equal(t, 0, Procs(Options{Workers: 8, Backends: []workerpool.Backend{workerpool.Goroutines}}))
	assert.Equal(t, runtime.GOMAXPROCS(0)+1, Procs(Options{}), "the defaults: GOMAXPROCS workers, Threads among the backends")
}
