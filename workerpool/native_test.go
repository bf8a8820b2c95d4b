package workerpool

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// needNative skips where the build has no Native backend, which only a
// build without cgo lacks (TestNativeUnavailableWithoutCgo covers that).
func needNative(t *testing.T) {
	t.Helper()
	if !NativeAvailable {
		t.Skip("the Native backend needs cgo on Linux; this build has none")
	}
}

var nativeMutexes = []MutexKind{MutexNormal, MutexPI, MutexAdaptive}

func TestNativeUnavailableWithoutCgo(t *testing.T) {
	if NativeAvailable {
		t.Skip("this build has the Native backend")
	}
	_, err := New(Options{Workers: 2, Backend: Native})
	require.ErrorIs(t, err, ErrNativeUnavailable)
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Equal(t, "workerpool: the Native backend is not built in (it needs cgo on Linux)", err.Error())
}

// The SGen round's enqueue-side costs are exact: per job one lock and one
// broadcast, a batch one of each, StartBatch one of each for batch and gate.
func TestNativeSGenRoundCounters(t *testing.T) {
	needNative(t)
	for _, m := range nativeMutexes {
		t.Run(m.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 8, Backend: Native, Wake: Broadcast, Gated: true, Mutex: m})
			var j countJob
			batch := make([]jobs.Job, 65)
			for i := range batch {
				batch[i] = &j
			}
			ctx := timeoutCtx(t)

			s0 := p.Stats()
			for _, b := range batch {
				require.NoError(t, p.Enqueue(b))
			}
			p.Start()
			require.NoError(t, p.Join(ctx))
			d := p.Stats().Sub(s0)
			assert.EqualValues(t, 65, d.EnqueueLockAcquisitions)
			assert.EqualValues(t, 65, d.EnqueueWakeCalls)
			assert.EqualValues(t, 66, d.WakeCalls, "65 broadcasts and Start's")
			assert.EqualValues(t, 65, d.TotalJobsRun())
			assert.True(t, d.FutexUncounted)
			assert.Zero(t, d.FutexCalls)

			s1 := p.Stats()
			require.NoError(t, p.EnqueueBatch(batch))
			p.Start()
			require.NoError(t, p.Join(ctx))
			d = p.Stats().Sub(s1)
			assert.EqualValues(t, 1, d.EnqueueLockAcquisitions)
			assert.EqualValues(t, 1, d.EnqueueWakeCalls)
			assert.EqualValues(t, 2, d.WakeCalls)
			assert.EqualValues(t, 65, d.TotalJobsRun())

			s2 := p.Stats()
			require.NoError(t, p.StartBatch(batch))
			require.NoError(t, p.Join(ctx))
			d = p.Stats().Sub(s2)
			assert.EqualValues(t, 1, d.EnqueueLockAcquisitions)
			assert.EqualValues(t, 1, d.EnqueueWakeCalls)
			assert.EqualValues(t, 1, d.WakeCalls)
			assert.EqualValues(t, 65, d.TotalJobsRun())
			assert.EqualValues(t, 3*65, j.runs.Load())
		})
	}
}

// Behind a closed gate nothing runs; a broadcast there wakes every waiting
// worker for nothing, and each such wake-up is counted as futile.
func TestNativeGateHoldsJobsAndCountsFutileWakeups(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 4, Backend: Native, Wake: Broadcast, Gated: true})
	var j countJob
	s0 := p.Stats()
	for range 10 {
		require.NoError(t, p.Enqueue(&j))
	}
	require.Never(t, func() bool { return j.runs.Load() > 0 }, 50*time.Millisecond, 5*time.Millisecond)
	require.Eventually(t, func() bool { return p.Stats().Sub(s0).FutileWakeups > 0 }, 10*time.Second, time.Millisecond)
	d := p.Stats().Sub(s0)
	assert.Equal(t, d.WorkersWoken, d.FutileWakeups, "before Start every wake-up is futile")
	require.NoError(t, p.Join(timeoutCtx(t)), "Join opens the gate for its own jobs")
	assert.EqualValues(t, 10, j.runs.Load())
}

func TestNativePoliciesRunEveryJobOnce(t *testing.T) {
	needNative(t)
	for _, w := range []WakePolicy{Broadcast, Signal, Targeted} {
		for _, gated := range []bool{false, true} {
			t.Run(w.String(), func(t *testing.T) {
				p := newPool(t, Options{Workers: 3, Backend: Native, Wake: w, Gated: gated})
				const n = 1000
				runs := make([]atomic.Int32, n)
				batch := make([]jobs.Job, 0, n)
				for i := range n {
					batch = append(batch, jobs.Func(func(int) { runs[i].Add(1) }))
				}
				for i := range 100 {
					require.NoError(t, p.Enqueue(batch[i]))
				}
				require.NoError(t, p.EnqueueBatch(batch[100:600]))
				require.NoError(t, p.StartBatch(batch[600:]))
				require.NoError(t, p.Join(timeoutCtx(t)))
				for i := range runs {
					require.EqualValues(t, 1, runs[i].Load(), "job %d", i)
				}
				assert.EqualValues(t, n, p.Stats().TotalJobsRun())
			})
		}
	}
}

// Join reports a job's panic as a *PanicError, and the worker goes on.
func TestNativePanicComesBackFromJoin(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 2, Backend: Native})
	boom := errors.New("boom")
	require.NoError(t, p.EnqueueFunc(func(int) { panic(boom) }))
	err := p.Join(timeoutCtx(t))
	require.ErrorIs(t, err, ErrJobPanicked)
	require.ErrorIs(t, err, boom)
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, string(pe.Stack), "native_test.go")
	var j countJob
	require.NoError(t, p.Enqueue(&j))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 1, j.runs.Load())
}

// A cancelled Join returns at once, while the job it waits for still runs.
func TestNativeJoinCancels(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 1, Backend: Native})
	release := make(chan struct{})
	require.NoError(t, p.EnqueueFunc(func(int) { <-release }))
	ctx, cancel := context.WithCancel(context.Background())
	joined := make(chan error, 1)
	go func() { joined <- p.Join(ctx) }()
	cancel()
	select {
	case err := <-joined:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled Join did not return within 10 s")
	}
	other, cancelOther := context.WithCancel(context.Background())
	defer cancelOther()
	go func() { joined <- p.Join(other) }()
	close(release)
	select {
	case err := <-joined:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Join did not return after its job ended")
	}
}

// Jobs' writes are visible after Join, also to the race detector, which
// sees no C mutex: the pool publishes completions through Go atomics.
func TestNativeJoinPublishesJobWrites(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 4, Backend: Native, Wake: Broadcast, Gated: true, Mutex: MutexPI})
	out := make([]int, 256)
	batch := make([]jobs.Job, len(out))
	for i := range batch {
		batch[i] = jobs.Func(func(int) { out[i] = i * 2 })
	}
	for round := range 20 {
		require.NoError(t, p.StartBatch(batch))
		require.NoError(t, p.Join(timeoutCtx(t)))
		for i, v := range out {
			require.Equal(t, i*2, v, "round %d", round)
			out[i] = 0
		}
	}
}

// Close runs every accepted job, refuses later ones, and ends every worker
// thread.
func TestNativeCloseDrainsAndEndsThreads(t *testing.T) {
	needNative(t)
	p, err := New(Options{Workers: 5, Backend: Native, Wake: Broadcast, Gated: true})
	require.NoError(t, err)
	tids := p.ThreadIDs()
	require.Len(t, tids, 5)
	during := threadIDs(t)
	for _, tid := range tids {
		require.True(t, during[tid], "worker thread %d not in /proc/self/task", tid)
	}
	var j countJob
	for range 50 {
		require.NoError(t, p.Enqueue(&j))
	}
	require.NoError(t, p.Close())
	assert.EqualValues(t, 50, j.runs.Load(), "Close opens the gate and runs every accepted job")
	assert.ErrorIs(t, p.Enqueue(&j), ErrClosed)
	assert.ErrorIs(t, p.EnqueueBatch([]jobs.Job{&j}), ErrClosed)
	assert.NoError(t, p.Join(context.Background()))
	assert.Nil(t, p.ThreadIDs())
	after := threadIDs(t)
	for _, tid := range tids {
		assert.False(t, after[tid], "worker thread %d still running after Close", tid)
	}
	assert.EqualValues(t, 50, p.Stats().TotalJobsRun(), "Stats outlive Close")
}

func TestNativeDiscard(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 2, Backend: Native, Gated: true})
	var j countJob
	for range 30 {
		require.NoError(t, p.Enqueue(&j))
	}
	require.NoError(t, p.EnqueueBatch([]jobs.Job{SpinJob(time.Millisecond), &j}))
	assert.Equal(t, 32, p.Discard())
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Zero(t, j.runs.Load())
	require.NoError(t, p.StartBatch([]jobs.Job{&j}))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 1, j.runs.Load(), "discarded slots are reused")
}

// A SpinJob runs in C: counted as run, but the Observer, which hears Go
// callbacks, never sees it start.
func TestNativeSpinJobMakesNoCallback(t *testing.T) {
	needNative(t)
	var obs countingObserver
	p := newPool(t, Options{Workers: 2, Backend: Native, Observer: &obs})
	require.NoError(t, p.EnqueueBatch([]jobs.Job{SpinJob(100 * time.Microsecond), SpinJob(0), jobs.Func(func(int) {})}))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 3, p.Stats().TotalJobsRun())
	assert.EqualValues(t, 1, obs.starts.Load())
	assert.EqualValues(t, 1, obs.ends.Load())
	assert.EqualValues(t, 3, obs.enqueued.Load())
}

type countingObserver struct{ starts, ends, enqueued atomic.Int64 }

func (o *countingObserver) JobStart(int)   { o.starts.Add(1) }
func (o *countingObserver) JobEnd(int)     { o.ends.Add(1) }
func (o *countingObserver) Enqueued(n int) { o.enqueued.Add(int64(n)) }
func (o *countingObserver) Woken(int)      {}
func (o *countingObserver) FutileWake(int) {}

func TestNativeRefusesWhatItDoesNotCarry(t *testing.T) {
	needNative(t)
	_, err := New(Options{Workers: 2, Backend: Native, Wake: Spin})
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = New(Options{Workers: 2, Backend: Native, Queue: Sharded})
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = New(Options{Workers: 2, Backend: Threads, Mutex: MutexPI})
	assert.ErrorIs(t, err, ErrInvalidOptions)
}

// Many goroutines enqueue at once: every job runs exactly once.
func TestNativeConcurrentEnqueuers(t *testing.T) {
	needNative(t)
	p := newPool(t, Options{Workers: 3, Backend: Native, Wake: Targeted})
	const enqueuers, each = 8, 500
	var j countJob
	done := make(chan struct{})
	for range enqueuers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range each {
				if i%10 == 0 {
					_ = p.EnqueueBatch([]jobs.Job{&j, &j})
				} else {
					_ = p.Enqueue(&j)
				}
			}
		}()
	}
	for range enqueuers {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("an enqueuer did not finish within 20 s")
		}
	}
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, enqueuers*(each+each/10), j.runs.Load())
}

// Close returns the panics that no Join collected, as the Go backends'
// Close does (TestNativePanicComesBackFromJoin covers Join's).
func TestNativeCloseReturnsUncollectedPanics(t *testing.T) {
	needNative(t)
	p, err := New(Options{Workers: 2, Backend: Native})
	require.NoError(t, err)
	boom := errors.New("boom")
	require.NoError(t, p.EnqueueFunc(func(int) { panic(boom) }))
	err = p.Close()
	require.ErrorIs(t, err, ErrJobPanicked)
	require.ErrorIs(t, err, boom)
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, err, p.Close(), "every Close returns the first one's result")
}

// Under GODEBUG=panicnil=1, recover returns nil for panic(nil): the native
// worker must still see a panic, report it and go on.
func TestNativePanicNilIsAPanic(t *testing.T) {
	needNative(t)
	t.Setenv("GODEBUG", "panicnil=1")
	p := newPool(t, Options{Workers: 1, Backend: Native})
	require.NoError(t, p.EnqueueFunc(func(int) { panic(nil) }))
	err := p.Join(timeoutCtx(t))
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Nil(t, pe.Value)
	var j countJob
	require.NoError(t, p.Enqueue(&j))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 1, j.runs.Load())
}

// Close, Shutdown and Join called inside a job run on one of the pool's own
// threads, which the Native backend can tell: each returns
// ErrCalledFromJob and leaves the pool as it was (no thread joins itself,
// nothing is freed under the running job), and a Close from outside
// afterwards closes. AddressSanitizer (.ci/run) saw a heap-use-after-free
// here when Close from a job freed the pool.
func TestNativeWaitsFromAJobAreRefused(t *testing.T) {
	needNative(t)
	for _, gated := range []bool{false, true} {
		t.Run(map[bool]string{false: "ungated", true: "gated"}[gated], func(t *testing.T) {
			p, err := New(Options{Workers: 2, Backend: Native, Gated: gated})
			require.NoError(t, err)
			var closeErr, shutdownErr, joinErr error
			require.NoError(t, p.EnqueueFunc(func(int) {
				closeErr = p.Close()
				shutdownErr = p.Shutdown(context.Background())
				joinErr = p.Join(context.Background())
			}))
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.ErrorIs(t, closeErr, ErrCalledFromJob)
			assert.ErrorIs(t, shutdownErr, ErrCalledFromJob)
			assert.ErrorIs(t, joinErr, ErrCalledFromJob)
			var j countJob
			require.NoError(t, p.Enqueue(&j), "the pool still runs jobs")
			require.NoError(t, p.Close())
			assert.EqualValues(t, 1, j.runs.Load())
			assert.ErrorIs(t, p.Enqueue(&j), ErrClosed)
		})
	}
}

// A worker retires a job and takes the next in one mutex hold, as SGen's
// thread_func does (mono/sgen/sgen-thread-pool.c): in a gated 8-worker
// round of 65 jobs by StartBatch, every lock acquisition is StartBatch's,
// Join's (its first and one per wake-up from done_cond), a worker's return
// from the work condition, or a worker's retire-and-look after a job.
// Hence acquisitions minus workers woken minus jobs is about 2 plus Join's
// sleeps, under half the job count (issue 40's done-when); with a second
// hold per job it was about 80.
func TestNativeOneHoldPerJob(t *testing.T) {
	needNative(t)
	for _, m := range nativeMutexes {
		t.Run(m.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 8, Backend: Native, Wake: Broadcast, Gated: true, Mutex: m})
			var j countJob
			batch := make([]jobs.Job, 65)
			for i := range batch {
				batch[i] = &j
			}
			for round := range 5 {
				s0 := p.Stats()
				require.NoError(t, p.StartBatch(batch))
				require.NoError(t, p.Join(timeoutCtx(t)))
				d := p.Stats().Sub(s0)
				require.EqualValues(t, 65, d.TotalJobsRun())
				extra := int64(d.LockAcquisitions) - int64(d.WorkersWoken) - int64(d.TotalJobsRun())
				// At least StartBatch's hold and Join's first. Usually exactly
				// 2 + Join's sleeps, but not always: under AddressSanitizer's
				// timing one pi round read 3 with no Join sleep. The second
				// hold per job this test exists against adds one per job.
				assert.GreaterOrEqual(t, extra, int64(2), "round %d: StartBatch's hold and Join's first (%+v)", round, d)
				assert.Less(t, extra, int64(65/2), "round %d: lock acquisitions - workers woken - jobs (%+v)", round, d)
			}
		})
	}
}

// A cancelled Join returns without the pool's mutex. With thousands of
// workers convoying on a PI mutex (--workers 4096 --mutex pi), a turn at it
// took about a second, twice (the interrupt's and the joiner's); here a
// test holds the mutex throughout as such a convoy would, and the cancelled
// Join must still return.
func TestNativeCancelledJoinNeedsNoMutex(t *testing.T) {
	needNative(t)
	for _, m := range nativeMutexes {
		t.Run(m.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Backend: Native, Mutex: m})
			release := make(chan struct{})
			require.NoError(t, p.EnqueueFunc(func(int) { <-release }))
			ctx, cancel := context.WithCancel(context.Background())
			joined := make(chan error, 1)
			go func() { joined <- p.Join(ctx) }()
			require.Eventually(t, func() bool { return p.Stats().JoinSleeps > 0 }, 20*time.Second, time.Millisecond,
				"Join never went to sleep")

			held, letGo, freed := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				runtime.LockOSThread() // a PI mutex is released by its owner only
				defer runtime.UnlockOSThread()
				unlock := p.nat.c.HoldMutex()
				close(held)
				<-letGo
				unlock()
				close(freed)
			}()
			testwait.Recv(t, held, 20*time.Second, "the mutex held")
			cancel()
			select {
			case err := <-joined:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(20 * time.Second):
				close(letGo)
				testwait.Recv(t, freed, 20*time.Second, "the mutex freed")
				close(release)
				t.Fatal("a cancelled Join waited for the pool's mutex")
			}
			close(letGo)
			testwait.Recv(t, freed, 20*time.Second, "the mutex freed")
			close(release)
			require.NoError(t, p.Join(timeoutCtx(t)), "the pool goes on after a cancelled Join")
		})
	}
}

// A batch collection's worker wake-ups are each classified once, by the
// CPU the worker woke on against its waker's; without KernelSnapshot no
// snapshot is taken, with it one per gate opening, its four counts at most
// the worker count.
func TestNativeKernelStats(t *testing.T) {
	needNative(t)
	for _, snap := range []bool{false, true} {
		t.Run(map[bool]string{false: "no snapshot", true: "snapshot"}[snap], func(t *testing.T) {
			const workers = 8
			p := newPool(t, Options{Workers: workers, Backend: Native, Wake: Broadcast, Gated: true, Mutex: MutexPI, KernelSnapshot: snap})
			var j countJob
			batch := make([]jobs.Job, 65)
			for i := range batch {
				batch[i] = &j
			}
			ctx := timeoutCtx(t)
			for range 3 {
				s0 := p.Stats()
				require.NoError(t, p.EnqueueBatch(batch))
				p.Start()
				require.NoError(t, p.Join(ctx))
				d := p.Stats().Sub(s0)
				k := d.Kernel
				require.True(t, k.WakeCPUsCounted)
				assert.Equal(t, d.WorkersWoken, k.WakeupsOnWakerCPU+k.WakeupsElsewhere+k.WakeupsUnclassified,
					"each wake-up classified once")
				assert.Zero(t, k.WakeupsUnclassified, "sched_getcpu fails on no Linux this runs on")
				assert.Zero(t, k.SnapshotsFailed)
				if !snap {
					assert.Zero(t, k.Snapshots)
					assert.Zero(t, k.RunnableOnWakerCPU+k.RunnableElsewhere+k.AsleepOnMutex+k.AsleepOnWorkCond)
					continue
				}
				t.Logf("%+v", k)
				assert.EqualValues(t, 1, k.Snapshots, "one gate opening")
				assert.LessOrEqual(t, k.RunnableOnWakerCPU+k.RunnableElsewhere+k.AsleepOnMutex+k.AsleepOnWorkCond, uint64(workers))
			}
			s0 := p.Stats()
			require.NoError(t, p.StartBatch(batch))
			require.NoError(t, p.Join(ctx))
			d := p.Stats().Sub(s0)
			assert.Equal(t, d.WorkersWoken, d.Kernel.WakeupsOnWakerCPU+d.Kernel.WakeupsElsewhere)
			if snap {
				assert.EqualValues(t, 1, d.Kernel.Snapshots, "StartBatch's gate opening")
			}
		})
	}
}

// The Go backends count none of KernelStats, KernelSnapshot or not.
func TestKernelStatsUncountedOffNative(t *testing.T) {
	for _, b := range []Backend{Goroutines, Threads} {
		t.Run(b.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 4, Backend: b, Gated: true, KernelSnapshot: true})
			var j countJob
			require.NoError(t, p.EnqueueBatch([]jobs.Job{&j, &j, &j}))
			p.Start()
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.Equal(t, KernelStats{}, p.Stats().Kernel)
		})
	}
}
