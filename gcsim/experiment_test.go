package gcsim_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// TestExperimentModeNames: an experiment names its modes in column order.
func TestExperimentModeNames(t *testing.T) {
	assert.Equal(t, []string{"perjob", "batch"}, smallExperiment().ModeNames())
	assert.Empty(t, gcsim.Experiment{}.ModeNames())
}

// TestRunLocksTheCollectorThread: with LockCollector, every collection
// of the run is made on one OS thread.
func TestRunLocksTheCollectorThread(t *testing.T) {
	e := smallExperiment()
	e.GCs, e.LockCollector = 20, true
	threads := map[int]bool{}
	res, err := e.Run(context.Background(), func(gcsim.Mode, int, int) { threads[unix.Gettid()] = true })
	require.NoError(t, err)
	assert.Equal(t, 20, res.RecordedPerMode())
	assert.Len(t, threads, 1)
}

// TestProcs: GOMAXPROCS as set, else workers+1 for a pool of OS threads,
// else the runtime's.
func TestProcs(t *testing.T) {
	e := smallExperiment() // goroutines, perjob and batch, 2 workers
	assert.Equal(t, runtime.GOMAXPROCS(0), e.Procs())
	e.Config.Backend = workerpool.Threads
	assert.Equal(t, 3, e.Procs())
	e.Modes = []gcsim.Mode{gcsim.Serial}
	assert.Equal(t, runtime.GOMAXPROCS(0), e.Procs(), "serial runs no pool")
	e.GOMAXPROCS = 5
	assert.Equal(t, 5, e.Procs())
}
