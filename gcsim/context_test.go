package gcsim

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/canceltest"
	"github.com/gcbench/gcbench/workerpool"
)

// bigHeap is a configuration whose initial heap takes seconds to build
// (about 1.5 GiB of objects); a test cancels it long before.
func bigHeap() Config {
	cfg := DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Workers, cfg.Backend = 2<<30, 512<<20, 2, workerpool.Goroutines
	cfg.Mutator.MajorFill, cfg.Mutator.LOSFill = 0.6, 0.5
	return cfg
}

func TestNewContextStopsSoonAfterCancel(t *testing.T) {
	ctx, since := canceltest.CancelSoon(t, 50*time.Millisecond)
	s, err := NewContext(ctx, bigHeap())
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, s)
	assert.Less(t, since(), canceltest.Liveness)
	assert.Equal(t, 1, strings.Count(err.Error(), "gcsim:"), err.Error())
}

// TestCompareCancelledWhileBuildingReturnsAnEmptyPartialResult: a cancel
// during the heap's construction still gives the caller a Result to report.
func TestCompareCancelledWhileBuildingReturnsAnEmptyPartialResult(t *testing.T) {
	ctx, since := canceltest.CancelSoon(t, 50*time.Millisecond)
	res, err := Compare(ctx, bigHeap(), CompareOptions{GCs: 10})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), canceltest.Liveness)
	require.NotNil(t, res)
	assert.True(t, res.Partial)
	require.Len(t, res.Modes, len(Modes()))
	for _, m := range res.Modes {
		assert.Empty(t, m.Records)
	}
	assert.Positive(t, res.Elapsed)
}

// TestCompareCancelledReturnsTheRecordsSoFar: Compare stopped mid-run
// returns every collection recorded before the stop, interleaved as ever.
func TestCompareCancelledReturnsTheRecordsSoFar(t *testing.T) {
	// Cancel once a few collections are done, however slow the machine.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var cancelledAt atomic.Int64
	progress := func(_ Mode, done, _ int) {
		if done >= 3 && cancelledAt.CompareAndSwap(0, time.Now().UnixNano()) {
			cancel()
		}
	}
	modes := []Mode{Serial, Batch}
	res, err := Compare(ctx, tinyConfig(3, 4), CompareOptions{Modes: modes, GCs: 1 << 30, Progress: progress})
	require.ErrorIs(t, err, context.Canceled)
	require.NotZero(t, cancelledAt.Load(), "returned before the cancel")
	assert.Less(t, time.Since(time.Unix(0, cancelledAt.Load())), canceltest.Liveness)
	require.NotNil(t, res)
	assert.True(t, res.Partial)
	a, b := len(res.Modes[0].Records), len(res.Modes[1].Records)
	assert.GreaterOrEqual(t, a+b, 3, "the collections done before the cancel are kept")
	assert.LessOrEqual(t, max(a, b)-min(a, b), 1, "rounds interleave the modes")
	for i, m := range res.Modes {
		assert.Equal(t, modes[i], m.Mode)
		for _, r := range m.Records {
			assert.Equal(t, modes[i], r.Mode)
			assert.Positive(t, r.Pause)
		}
	}
	assert.Greater(t, res.Elapsed, res.SimOverhead)

	res, err = Compare(context.Background(), tinyConfig(3, 4), CompareOptions{Modes: modes, GCs: 2})
	require.NoError(t, err)
	assert.False(t, res.Partial)
}

// TestMutateContextStopsInALargeNursery: filling a 256 MiB nursery takes
// long enough to cancel; the Sim is broken afterwards.
func TestMutateContextStopsInALargeNursery(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.Verify = false
	cfg.Nursery, cfg.MajorHeap, cfg.LOS = 256<<20, 640<<20, 8<<20
	cfg.Mutator.MajorFill, cfg.Mutator.LOSFill = 0, 0 // nothing to build first
	s := newSim(t, cfg)
	ctx, since := canceltest.CancelSoon(t, 50*time.Millisecond)
	err := s.MutateContext(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), canceltest.Liveness)
	assert.Less(t, s.Heap().NurseryUsed(), cfg.Nursery, "stopped part-way")
	_, err = s.Collect(Batch)
	assert.ErrorIs(t, err, ErrBroken)
	assert.ErrorIs(t, err, context.Canceled, "ErrBroken says why")
}

// TestCollectContextCancelledBreaksTheSim: a collection under a context
// already ended is cut short (the pause stops; the record is returned
// with its phases timed, the nursery emptied) and breaks the Sim.
func TestCollectContextCancelledBreaksTheSim(t *testing.T) {
	s := newSim(t, tinyConfig(2, 4))
	require.NoError(t, s.Mutate())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec, err := s.CollectContext(ctx, Batch)
	require.ErrorIs(t, err, context.Canceled)
	assert.Positive(t, rec.Pause, "the pause ran")
	assert.Zero(t, s.Heap().NurseryUsed(), "and emptied the nursery")
	assert.ErrorIs(t, s.Mutate(), ErrBroken)
}

// TestMutateContextStopsInTheMajorCollection: a major collection
// interrupted leaves the heap closed to everything but Close.
func TestMutateContextStopsInTheMajorCollection(t *testing.T) {
	cfg := tinyConfig(4, 4)
	cfg.Mutator.MajorGCFree = 1 // a major collection before every mutator phase
	s := newSim(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.MutateContext(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "major collection interrupted")
	_, err = s.Heap().Verify(heap.VerifyOptions{})
	assert.ErrorIs(t, err, heap.ErrInterrupted)
}

// TestThePauseStopsBetweenEnqueues: under a context already ended, a
// PerJob pause enqueues nothing (it looks at the context before every
// enqueue), and every pool mode returns the context's error rather than a
// record of a collection that did not run whole. Before, a pause never
// looked: 4096 workers woken for each of 32,769 jobs kept a SIGINT waiting
// for minutes.
func TestThePauseStopsBetweenEnqueues(t *testing.T) {
	for _, mode := range []Mode{PerJob, Batch, StartBatch} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := tinyConfig(2, 4)
			cfg.Verify = false
			s := newSim(t, cfg)
			require.NoError(t, s.Mutate())
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			before := s.PoolStats()
			_, err := s.CollectContext(ctx, mode)
			require.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "collection interrupted")
			assert.NotContains(t, err.Error(), "raise major_heap", "a stop is no sizing problem")
			if mode == PerJob {
				st := s.PoolStats().Sub(before)
				assert.Zero(t, st.TotalJobsRun()+st.Dropped, "no job was enqueued")
			}
			assert.ErrorIs(t, s.Mutate(), ErrBroken)
		})
	}
}
