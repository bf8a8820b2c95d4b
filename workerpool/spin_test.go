package workerpool

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

// withProcs runs f with GOMAXPROCS set to n.
func withProcs(t *testing.T, n int, f func()) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	f()
}

// A Join whose jobs are done takes no lock on an ungated pool, and counts
// neither a spin nor a sleep.
func TestJoinWithJobsDoneTakesNoLock(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		var j countJob
		require.NoError(t, p.Enqueue(&j))
		require.NoError(t, p.Join(timeoutCtx(t)))
		before, coordLocks := p.Stats(), p.coord.locks.Load()
		for range 10 {
			require.NoError(t, p.Join(timeoutCtx(t)))
		}
		d := p.Stats().Sub(before)
		assert.Zero(t, p.coord.locks.Load()-coordLocks, "Join took the lock")
		assert.Zero(t, d.JoinSpins)
		assert.Zero(t, d.JoinSleeps)
	})
}

// A Join that finds its job panicked still takes the lock and reports it,
// also when the job ran on a spinning worker that retired its grab alone.
func TestJoinFastPathStillReportsPanics(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		for range 20 {
			require.NoError(t, p.Enqueue(jobs.Func(func(int) { panic("boom") })))
			assert.ErrorIs(t, p.Join(timeoutCtx(t)), ErrJobPanicked)
			var j countJob
			require.NoError(t, p.Enqueue(&j))
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 1, j.runs.Load())
		}
	})
}

// With GOMAXPROCS 1 nothing spins: a spinner would hold the only P that
// the enqueuer it waits for needs.
func TestSpinDoesNotSpinOnOneP(t *testing.T) {
	withProcs(t, 1, func() {
		for _, b := range allBackends {
			p := newPool(t, Options{Workers: 2, Backend: b, Wake: Spin})
			var j countJob
			for range 200 {
				require.NoError(t, p.Enqueue(&j))
				require.NoError(t, p.Join(timeoutCtx(t)))
			}
			s := p.Stats()
			assert.EqualValues(t, 200, j.runs.Load())
			assert.Zero(t, s.Handoffs, "%v", b)
			assert.Zero(t, s.JoinSpins, "%v", b)
			assert.EqualValues(t, 0, p.spin.free.Load())
		}
	})
}

// Round trips to a Spin pool go to its listening worker directly: each
// handoff is a grab and a spinning wake-up, taken by the enqueuer, and the
// listener takes no lock for it. Whether the worker is listening when a
// job comes is timing (it stops after spinFor), so the test retries.
func TestSpinHandsJobsToTheListener(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Backend: b, Wake: Spin})
			var j countJob
			handed := handToListener(t, p, &j, func() bool {
				before := p.Stats()
				require.NoError(t, p.Enqueue(&j))
				require.NoError(t, p.Join(timeoutCtx(t)))
				d := p.Stats().Sub(before)
				if d.Handoffs != 1 {
					return false
				}
				assert.EqualValues(t, 1, d.Grabs)
				assert.EqualValues(t, 1, d.EnqueueWakeCalls)
				assert.GreaterOrEqual(t, d.SpinWakeups, uint64(1))
				return true
			})
			assert.True(t, handed, "no round trip was handed to the listener")
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, p.Stats().TotalJobsRun(), j.runs.Load())
		})
	}
}

// handToListener runs prime on p's one Spin worker, after which it
// listens, then calls send, which enqueues a job, joins it and reports
// whether it was handed to the listener. Whether the worker still listens
// is timing (it stops after spinFor), so it tries up to 1000 times and
// reports whether send ever succeeded.
func handToListener(t *testing.T, p *Pool, prime jobs.Job, send func() bool) bool {
	for range 1000 {
		require.NoError(t, p.Enqueue(prime))
		require.NoError(t, p.Join(timeoutCtx(t)))
		if mailOf(p.workers[0].state.Load()) == mailListening && send() {
			return true
		}
	}
	return false
}

// A listener that hears nothing for spinFor stops spinning and sleeps on
// the semaphore, giving its spinner slot back; Close then finds every
// worker asleep and ends them.
func TestSpinListenerTimesOut(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	p := newPool(t, Options{Workers: 2, Wake: Spin})
	waitParked(t, p)
	assert.EqualValues(t, runtime.GOMAXPROCS(0)-1, p.spin.free.Load(), "sleepers hold no spinner slot")
	assert.Zero(t, p.Stats().JobsRun[0])
	require.NoError(t, p.Close())
}

// Threads workers that sleep while GOMAXPROCS < workers+1 are counted in
// HandoffSleeps; with GOMAXPROCS to spare they are not.
func TestHandoffSleepsCountTheSlowRegime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Threads backend needs Linux")
	}
	withProcs(t, 2, func() {
		p := newPool(t, Options{Workers: 4, Backend: Threads, Wake: Broadcast})
		waitParked(t, p)
		assert.Zero(t, p.Stats().HandoffSleeps, "a sleep is counted when it ends")
		var j countJob
		require.NoError(t, p.Enqueue(&j)) // wakes all four
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Positive(t, p.Stats().HandoffSleeps)
	})
	withProcs(t, 5, func() {
		p := newPool(t, Options{Workers: 4, Backend: Threads, Wake: Broadcast})
		waitParked(t, p)
		var j countJob
		require.NoError(t, p.Enqueue(&j))
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Zero(t, p.Stats().HandoffSleeps)
	})
	p := newPool(t, Options{Workers: 4, Wake: Broadcast})
	waitParked(t, p)
	assert.Zero(t, p.Stats().HandoffSleeps, "never on Goroutines")
}

func TestUnfairSemaSpinsOnlyWhenAllowed(t *testing.T) {
	var budget spinBudget
	u := newUnfairSema(goKit{}, 4, &budget)
	assert.Zero(t, u.release(1), "nobody waits: the unit stays for the next wait")
	calls, blocked := u.wait(true)
	assert.Zero(t, calls)
	assert.False(t, blocked, "a free unit is taken at once")

	done := make(chan bool)
	go func() { _, b := u.wait(true); done <- b }()
	require.Eventually(t, func() bool { return unpack(u.state.Load()).waiters == 1 }, 5*time.Second, time.Millisecond)
	assert.Zero(t, unpack(u.state.Load()).spinners)
	u.release(1)
	assert.True(t, <-done, "a wait that may not spin blocks")

	budget.give()
	go func() { _, b := u.wait(true); done <- b }()
	require.Eventually(t, func() bool {
		s := unpack(u.state.Load())
		return s.spinners == 1 || s.waiters == 1
	}, 5*time.Second, time.Microsecond)
	u.release(1)
	<-done
	assert.Equal(t, semState{}, unpack(u.state.Load()))
	assert.EqualValues(t, 1, budget.free.Load(), "the spinner gave its slot back")
}

// A job handed to the listener that ends its goroutine with
// runtime.Goexit unwinds through listen; the listener's spinner slot must
// come back all the same, or every such job would lower the budget for
// the life of the pool until nothing spins.
func TestGoexitInAHandedGrabGivesTheSpinnerSlotBack(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Backend: b, Wake: Spin})
			var j countJob
			exits := jobs.Func(func(int) { runtimeGoexit() })
			handed := handToListener(t, p, &j, func() bool {
				before := p.Stats()
				require.NoError(t, p.Enqueue(exits))
				require.ErrorIs(t, p.Join(timeoutCtx(t)), ErrJobGoexit)
				return p.Stats().Sub(before).Handoffs == 1
			})
			require.True(t, handed, "no Goexit job was handed to the listener")
			// The old goroutine gives the slot back as it unwinds, which
			// may be after its replacement has gone to sleep.
			waitParked(t, p)
			assert.Eventually(t, func() bool { return p.spin.free.Load() == int32(runtime.GOMAXPROCS(0)-1) },
				2*time.Second, time.Millisecond, "every spinner slot is free again")
		})
	}
}
