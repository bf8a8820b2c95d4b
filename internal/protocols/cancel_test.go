package protocols

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/workerpool"
)

// liveness is how soon after a cancel a run must return: generous, since
// it checks that the run stops, not how fast (-race, a busy machine).
const liveness = 3 * time.Second

// cancelSoon returns a context cancelled after d and a function telling how
// long ago the cancel happened.
func cancelSoon(t *testing.T, d time.Duration) (context.Context, func() time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var at atomic.Int64
	timer := time.AfterFunc(d, func() {
		at.Store(time.Now().UnixNano())
		cancel()
	})
	t.Cleanup(func() { timer.Stop() })
	return ctx, func() time.Duration {
		require.NotZero(t, at.Load(), "returned before the cancel")
		return time.Since(time.Unix(0, at.Load()))
	}
}

// cancelAfterRuns returns a context and a Progress callback that cancels
// it once n runs are done: a stop at an exact point of a comparison.
func cancelAfterRuns(t *testing.T, n int) (context.Context, func(done, total int)) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, func(done, _ int) {
		if done == n {
			cancel()
		}
	}
}

// TestRunReadyListStopsSoonAfterCancel: producers of 2^40 events each would
// run for hours; a cancel stops producers and consumer within the bound.
func TestRunReadyListStopsSoonAfterCancel(t *testing.T) {
	for _, variant := range []ReadyVariant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			ctx, since := cancelSoon(t, 50*time.Millisecond)
			_, err := RunReadyList(ctx, ReadyListRun{Kind: kind, Variant: variant, Producers: 4, Events: 1 << 40})
			require.ErrorIs(t, err, context.Canceled, "%v/%v", variant, kind)
			assert.Less(t, since(), liveness, "%v/%v", variant, kind)
		}
	}
}

// TestCompareReadyListCancelledKeepsCompleteRepetitions: a comparison of
// many short runs stopped part-way reports the repetitions completed, each
// row with that many samples; one stopped in its first repetition reports
// nothing.
func TestCompareReadyListCancelledKeepsCompleteRepetitions(t *testing.T) {
	ctx, since := cancelSoon(t, 300*time.Millisecond)
	rep, err := CompareReadyList(ctx, ReadyListOptions{Producers: []int{2}, Events: 500, Repetitions: MaxReadyListRepetitions})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), liveness)
	require.NotNil(t, rep, "some repetitions complete in 300ms")
	assert.True(t, rep.Partial)
	assert.Positive(t, rep.Repetitions)
	assert.Less(t, rep.Repetitions, MaxReadyListRepetitions)
	require.Len(t, rep.Rows, 2)
	for _, row := range rep.Rows {
		assert.Len(t, row.MPSC.Samples, rep.Repetitions)
		assert.Len(t, row.Mutex.Samples, rep.Repetitions)
	}

	ctx, since = cancelSoon(t, 50*time.Millisecond)
	rep, err = CompareReadyList(ctx, ReadyListOptions{Producers: []int{2}, Events: 1 << 40, Repetitions: 1, Variants: []ReadyVariant{Callback}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), liveness)
	assert.Nil(t, rep)
}

// TestCompareReadyListStoppedInTheFirstRepetitionKeepsFinishedRows: a stop
// after three of the first repetition's four runs keeps the row whose two
// runs finished and leaves out the one with a run missing.
func TestCompareReadyListStoppedInTheFirstRepetitionKeepsFinishedRows(t *testing.T) {
	ctx, progress := cancelAfterRuns(t, 3)
	rep, err := CompareReadyList(ctx, ReadyListOptions{Producers: []int{2}, Events: 500, Repetitions: 3,
		Variants: []ReadyVariant{Transition, Callback}, Progress: progress})
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.True(t, rep.Partial)
	assert.Equal(t, 1, rep.Repetitions)
	require.Len(t, rep.Rows, 1)
	row := rep.Rows[0]
	assert.Equal(t, Transition.String(), row.Variant)
	assert.Len(t, row.MPSC.Samples, 1)
	assert.Len(t, row.Mutex.Samples, 1)
	assert.Positive(t, row.Ratio)
}

// TestRunPoolStopsSoonAfterCancel: a throughput run of 16 Mi items, whose
// queue the pool would otherwise drain at Close for seconds, returns soon
// after a cancel; so does a long latency run.
func TestRunPoolStopsSoonAfterCancel(t *testing.T) {
	for _, tc := range []struct {
		c     PoolContender
		proto PoolProtocol
		batch int
	}{
		{PoolContender{Baseline: true}, Throughput, 0},
		{PoolContender{Backend: workerpool.Goroutines, Wake: workerpool.Broadcast, Batch: true}, Throughput, 1024},
		{PoolContender{Backend: workerpool.Goroutines, Wake: workerpool.Spin}, Throughput, 0},
		{PoolContender{Backend: workerpool.Threads, Wake: workerpool.Targeted, Batch: true}, Throughput, 1024},
		{PoolContender{Backend: workerpool.Threads, Wake: workerpool.Broadcast}, Latency, 0},
		{PoolContender{Baseline: true}, Latency, 0},
	} {
		ctx, since := cancelSoon(t, 100*time.Millisecond)
		items := 1 << 24
		if tc.proto == Latency {
			items = MaxPoolRoundTrips
		}
		_, err := RunPool(ctx, PoolRun{Contender: tc.c, Protocol: tc.proto, Items: items, Workers: 2, BatchSize: tc.batch})
		require.ErrorIs(t, err, context.Canceled, "%v %v", tc.c, tc.proto)
		assert.Less(t, since(), liveness, "%v %v", tc.c, tc.proto)
	}
}

// TestComparePoolCancelledKeepsCompleteRepetitions: as for the ready list.
func TestComparePoolCancelledKeepsCompleteRepetitions(t *testing.T) {
	ctx, since := cancelSoon(t, 300*time.Millisecond)
	rep, err := ComparePool(ctx, PoolOptions{Items: 200, RoundTrips: 20, Repetitions: MaxPoolRepetitions, Workers: 2,
		Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Targeted}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), liveness)
	require.NotNil(t, rep, "some repetitions complete in 300ms")
	assert.True(t, rep.Partial)
	assert.Positive(t, rep.Repetitions)
	require.Len(t, rep.Rows, 3)
	for _, row := range rep.Rows {
		assert.Len(t, row.Throughput.Samples, rep.Repetitions)
		assert.Len(t, row.Latency.Samples, rep.Repetitions)
		assert.Positive(t, row.Latency.Speedup)
	}

	rep, err = ComparePool(context.Background(), PoolOptions{Items: 50, RoundTrips: 5, Repetitions: 1, Workers: 1,
		Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Signal}})
	require.NoError(t, err)
	assert.False(t, rep.Partial)
}

// TestComparePoolStoppedInTheFirstRepetitionKeepsFinishedRuns: a stop
// after the first repetition's throughput runs and the baseline's latency
// run keeps those, with nil latency stats for the runs that did not finish.
func TestComparePoolStoppedInTheFirstRepetitionKeepsFinishedRuns(t *testing.T) {
	ctx, progress := cancelAfterRuns(t, 4)
	rep, err := ComparePool(ctx, PoolOptions{Items: 200, RoundTrips: 20, Repetitions: 3, Workers: 2,
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
		r := PoolRun{Contender: PoolContender{Backend: b, Wake: workerpool.Broadcast, Batch: true},
			Protocol: Throughput, Items: 1 << 20, Workers: 1}
		_, err := runOurPool(ctx, r, job)
		require.ErrorIs(t, err, context.Canceled, "%v", b)
		assert.Less(t, job.n.Load(), int64(r.Items), "%v: the queued items were dropped", b)
	}
}
