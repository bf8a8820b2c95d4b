package poolbench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/canceltest"
	"github.com/gcbench/gcbench/workerpool"
)

// TestMeasureStopsSoonAfterCancel: a throughput run of 16 Mi items, whose
// queue the pool would otherwise drain at Close for seconds, returns soon
// after a cancel; so does a long latency run.
func TestMeasureStopsSoonAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		c     Contender
		proto Protocol
		batch int
	}{
		{Contender{Baseline: true}, Throughput, 0},
		{Contender{Backend: workerpool.Goroutines, Wake: workerpool.Broadcast, Batch: true}, Throughput, 1024},
		{Contender{Backend: workerpool.Goroutines, Wake: workerpool.Spin}, Throughput, 0},
		{Contender{Backend: workerpool.Threads, Wake: workerpool.Targeted, Batch: true}, Throughput, 1024},
		{Contender{Backend: workerpool.Threads, Wake: workerpool.Broadcast}, Latency, 0},
		{Contender{Baseline: true}, Latency, 0},
	} {
		ctx, since := canceltest.CancelSoon(t, 100*time.Millisecond)
		items := 1 << 24
		if tc.proto == Latency {
			items = MaxRoundTrips
		}
		_, err := Measure(ctx, Run{Contender: tc.c, Protocol: tc.proto, Items: items, Workers: 2, BatchSize: tc.batch})
		require.ErrorIs(t, err, context.Canceled, "%v %v", tc.c, tc.proto)
		assert.Less(t, since(), canceltest.Liveness, "%v %v", tc.c, tc.proto)
	}
}

// TestCompareCancelledKeepsCompleteRepetitions: as for the ready list.
func TestCompareCancelledKeepsCompleteRepetitions(t *testing.T) {
	ctx, since := canceltest.CancelSoon(t, 300*time.Millisecond)
	rep, err := Compare(ctx, Options{Items: 200, RoundTrips: 20, Repetitions: MaxRepetitions, Workers: 2,
		Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Targeted}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), canceltest.Liveness)
	require.NotNil(t, rep, "some repetitions complete in 300ms")
	assert.True(t, rep.Partial)
	assert.Positive(t, rep.Repetitions)
	require.Len(t, rep.Rows, 3)
	for _, row := range rep.Rows {
		assert.Len(t, row.Throughput.Samples, rep.Repetitions)
		assert.Len(t, row.Latency.Samples, rep.Repetitions)
		assert.Positive(t, row.Latency.Speedup)
	}

	rep, err = Compare(context.Background(), Options{Items: 50, RoundTrips: 5, Repetitions: 1, Workers: 1,
		Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Signal}})
	require.NoError(t, err)
	assert.False(t, rep.Partial)
}

// TestCompareStoppedInTheFirstRepetitionKeepsFinishedRuns: a stop
// after the first repetition's throughput runs and the baseline's latency
// run keeps those, with nil latency stats for the runs that did not finish.
func TestCompareStoppedInTheFirstRepetitionKeepsFinishedRuns(t *testing.T) {
	ctx, progress := canceltest.CancelAfterRuns(t, 4)
	rep, err := Compare(ctx, Options{Items: 200, RoundTrips: 20, Repetitions: 3, Workers: 2,
		Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Targeted},
		Progress: progress})
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.True(t, rep.Partial)
	assert.Equal(t, 1, rep.Repetitions)
	require.Len(t, rep.Rows, 3)
	for i, row := range rep.Rows {
		require.NotNil(t, row.Throughput, row.Contender)
		assert.Len(t, row.Throughput.Samples, 1, row.Contender)
		assert.Positive(t, row.Throughput.Speedup, row.Contender)
		if i == 0 {
			require.NotNil(t, row.Latency, "the baseline's latency run finished")
			assert.Len(t, row.Latency.Samples, 1)
		} else {
			assert.Nil(t, row.Latency, row.Contender)
		}
	}
}

// tripOnWait is a context that ends the first time someone waits on it
// (calls Done): the pool's Join, once it finds items still to run. The
// queueing before never waits, so the run is cancelled exactly when every
// item has been queued.
type tripOnWait struct {
	context.Context
	once    sync.Once
	done    chan struct{}
	tripped atomic.Bool
}

func newTripOnWait() *tripOnWait {
	return &tripOnWait{Context: context.Background(), done: make(chan struct{})}
}

func (c *tripOnWait) Done() <-chan struct{} {
	c.once.Do(func() { c.tripped.Store(true); close(c.done) })
	return c.done
}

func (c *tripOnWait) Err() error {
	if c.tripped.Load() {
		return context.Canceled
	}
	return nil
}

// TestCancelledThroughputRunDropsTheQueue: the items still queued when a
// run is cancelled are dropped, not run by Close (which took seconds for
// millions of items).
//
// It runs with a P beyond the worker's and the Join's: the goroutine that
// wakes a Join whose context ended (context.AfterFunc) needs one. With
// two, both held (the worker's running, the Join's in its futex call),
// that goroutine waited until sysmon retook the Join's P (up to 10 ms),
// time in which the worker ran every item in about one run in five, so
// that Join returned done, not cancelled.
func TestCancelledThroughputRunDropsTheQueue(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, b := range []workerpool.Backend{workerpool.Goroutines, workerpool.Threads} {
		job := new(countJob)
		ctx := newTripOnWait()
		r := Run{Contender: Contender{Backend: b, Wake: workerpool.Broadcast, Batch: true},
			Protocol: Throughput, Items: 1 << 20, Workers: 1}
		_, err := runOurPool(ctx, r, job)
		require.ErrorIs(t, err, context.Canceled, "%v", b)
		assert.Less(t, job.n.Load(), int64(r.Items), "%v: the queued items were dropped", b)
	}
}
