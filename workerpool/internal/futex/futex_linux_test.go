//go:build linux

package futex

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A plain int guarded by the Mutex: the race detector must see the lock's
// atomics as happens-before edges, and the sum must be exact.
func TestMutexExcludes(t *testing.T) {
	var m Mutex
	var wg sync.WaitGroup
	counter, calls := 0, atomic.Int64{}
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				n := m.Lock()
				counter++
				n += m.Unlock()
				calls.Add(int64(n))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 16000, counter)
	assert.Zero(t, m.state.Load())
	t.Logf("futex calls under contention: %d", calls.Load())
}

func TestMutexUncontendedMakesNoSyscall(t *testing.T) {
	var m Mutex
	assert.Zero(t, m.Lock())
	assert.Zero(t, m.Unlock())
	assert.Panics(t, func() { m.Unlock() })
}

func TestWaitReturnsEAGAINWhenValueDiffers(t *testing.T) {
	var w atomic.Uint32
	w.Store(1)
	assert.ErrorIs(t, Wait(&w, 0), unix.EAGAIN)
	assert.Zero(t, Wake(&w, 1), "nobody waits")
}

func TestCondWakesWaiters(t *testing.T) {
	var m Mutex
	var c Cond
	ready := 0
	woke := make(chan struct{}, 3)
	for range 3 {
		go func() {
			m.Lock()
			for ready == 0 {
				c.Wait(&m)
			}
			m.Unlock()
			woke <- struct{}{}
		}()
	}
	require.Eventually(t, func() bool { return c.waiters.Load() == 3 }, 5*time.Second, time.Millisecond)
	m.Lock()
	ready = 1
	assert.Equal(t, 1, c.Wake(WakeAll))
	m.Unlock()
	for range 3 {
		<-woke
	}
	assert.Zero(t, c.Wake(1), "no waiters: no system call")
}

func TestEventRemembersASetBeforeWait(t *testing.T) {
	var e Event
	assert.Zero(t, e.Set(), "owner not asleep: no system call")
	assert.Zero(t, e.Wait(), "already set: returns at once")
	done := make(chan int)
	go func() { done <- e.Wait() }()
	require.Eventually(t, func() bool { return e.state.Load() == eventSleeping }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 1, e.Set())
	assert.GreaterOrEqual(t, <-done, 1)
}

func TestSemaCounts(t *testing.T) {
	var s Sema
	assert.Zero(t, s.Release(2))
	assert.Zero(t, s.Acquire())
	assert.Zero(t, s.Acquire())
	var got atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { s.Acquire(); got.Add(1) })
	}
	require.Eventually(t, func() bool { return s.waiters.Load() == 4 }, 5*time.Second, time.Millisecond)
	s.Release(3)
	require.Eventually(t, func() bool { return got.Load() == 3 }, 5*time.Second, time.Millisecond)
	s.Release(1)
	wg.Wait()
	assert.Zero(t, s.count.Load())
}

func TestThreadHelpers(t *testing.T) {
	assert.True(t, ThreadAlive(Gettid()))
}

func TestMutexSleepsWhileHeld(t *testing.T) {
	var m Mutex
	m.Lock()
	got := make(chan int)
	go func() {
		n := m.Lock()
		m.Unlock()
		got <- n
	}()
	require.Eventually(t, func() bool { return m.state.Load() == 2 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 1, m.Unlock(), "a contended unlock wakes the sleeper")
	assert.GreaterOrEqual(t, <-got, 1, "the waiter made at least one futex wait")
}
