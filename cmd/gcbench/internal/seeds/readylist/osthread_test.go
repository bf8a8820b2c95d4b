package readylist

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	for _, variant := range []Variant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			for _, producers := range []int{1, 4} {
				s, err := runWithDeadline(Run{Kind: kind, Variant: variant, Producers: producers, Events: 50_000})
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
	s, err := runWithDeadline(Run{Kind: MPSC, Variant: Callback, Producers: 6, Events: 1000})
	require.NoError(t, err)
	assert.Equal(t, 7, s.Threads)
}
