package protocols

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/trace"
)

// TestReadyWaiterSleepsUntilWoken checks the consumer's sleep: it stays
// asleep until a producer wakes it, and that wake is one counted
// FUTEX_WAKE; a wake while nobody sleeps is one load and wakes nobody.
func TestReadyWaiterSleepsUntilWoken(t *testing.T) {
	var w readyWaiter
	w.wake()
	assert.Zero(t, w.wakes.Load(), "nobody sleeps: no wake-up")
	w.prepare()
	var woke sync.WaitGroup
	woke.Add(1)
	var waits int64
	go func() {
		defer woke.Done()
		waits = w.sleep()
	}()
	done := make(chan struct{})
	go func() { woke.Wait(); close(done) }()
	select {
	case <-done:
		t.Fatal("the consumer returned from sleep before any wake")
	case <-time.After(30 * time.Millisecond):
	}
	w.wake()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the consumer was not woken")
	}
	assert.Equal(t, int64(1), w.wakes.Load())
	if runtime.GOOS == "linux" {
		assert.GreaterOrEqual(t, waits, int64(1), "it slept in the kernel")
	}
	w.wake()
	assert.Equal(t, int64(1), w.wakes.Load(), "awake again: no second wake-up")
}

// TestReadyListConsumerNeverPolls checks, from the run's counters, that
// the consumer sleeps instead of polling: every look at the list that
// found nothing is a park's first look or its recheck (so at most two per
// park), every park that did not find work on its recheck was ended by a
// producer's wake, and FUTEX_WAITs are no more than the wakes (a few
// spurious returns aside). The first two hold by how consume and park
// count their looks; what catches a consumer that polled (looked again
// without sleeping) is the third — its extra empty looks outnumber the
// wakes — and one that slept in FUTEX_WAIT without being woken fails the
// fourth.
func TestReadyListConsumerNeverPolls(t *testing.T) {
	for _, variant := range []ReadyVariant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			for _, producers := range []int{1, 4} {
				s, err := runWithDeadline(ReadyListRun{Kind: kind, Variant: variant, Producers: producers, Events: 50_000})
				require.NoError(t, err)
				name := variant.String() + "/" + kind.String()
				assert.LessOrEqual(t, s.Parks, s.EmptyPolls, name)
				assert.LessOrEqual(t, s.EmptyPolls, 2*s.Parks, "%s: empty looks per park", name)
				assert.LessOrEqual(t, s.EmptyPolls-s.Parks, s.Wakes, "%s: parks that slept, each ended by a wake", name)
				assert.LessOrEqual(t, s.Waits, s.Wakes+2, "%s: FUTEX_WAITs", name)
			}
		}
	}
}

// TestReadyListActorsOwnThreads checks that every producer and the
// consumer ran on an OS thread of its own.
func TestReadyListActorsOwnThreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread ids come from gettid")
	}
	s, err := runWithDeadline(ReadyListRun{Kind: MPSC, Variant: Callback, Producers: 6, Events: 1000})
	require.NoError(t, err)
	assert.Equal(t, 7, s.Threads)
}

// TestStressActorsOwnThreads checks that the writers and the reader ran on
// distinct OS threads, that the reader's thread CPU time was measured, that
// flushes asked are the counted time over the flush interval, and that
// the counted figures lie within the run's.
func TestStressActorsOwnThreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread ids and CPU time come from gettid and CLOCK_THREAD_CPUTIME_ID")
	}
	res, err := TraceStress(context.Background(), TraceStressOptions{
		Writers: 5, PayloadSize: 64, Limit: trace.MinLimit * 4, Duration: 40 * time.Millisecond,
		Iterations: 1, FlushInterval: 5 * time.Millisecond, Dir: t.TempDir(),
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, 2)
	for _, run := range res.Runs {
		c := run.Counted
		assert.Equal(t, 6, run.Threads, "%v: 5 writers and the reader", run.Policy)
		assert.Equal(t, float64(c.Duration)/float64(5*time.Millisecond), run.FlushesAsked, "%v", run.Policy)
		assert.Positive(t, c.Duration, "%v", run.Policy)
		assert.LessOrEqual(t, c.Start+c.Duration, run.Duration, "%v: counted from the first drop to the stop, within the run", run.Policy)
		// A loaded machine may leave the reader no CPU in so short a count
		// (TestThreadCPUOf checks the clock itself).
		share := c.ReaderCPUShare()
		assert.True(t, share >= 0 && share <= 101, "%v: reader CPU share %.1f%%", run.Policy, share)
		// The flushes begun in the counted time cannot be more than the
		// reader's pause allows (and one in flight at each end), nor more
		// than the session's, which add its first flush and Close's drain.
		assert.LessOrEqual(t, float64(c.Flushes), run.FlushesAsked+2, "%v", run.Policy)
		assert.LessOrEqual(t, c.Flushes+2, run.Session.Flushes, "%v", run.Policy)
		assert.LessOrEqual(t, c.EventsRead, run.EventsRead, "%v", run.Policy)
		assert.LessOrEqual(t, c.EventsDropped, run.EventsDropped, "%v", run.Policy)
	}
}
