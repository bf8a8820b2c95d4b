package workerpool

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewRejectsInvalidOptions(t *testing.T) {
	for _, o := range []Options{
		{Workers: -1},
		{Workers: MaxWorkers + 1},
		{Workers: 2, Backend: Backend(7)},
		{Workers: 2, Backend: Backend(-1)},
		{Workers: 2, Wake: WakePolicy(9)},
		{Workers: 2, Queue: QueueLayout(2)},
		{Workers: 2, Queue: QueueLayout(-1)},
	} {
		p, err := New(o)
		assert.Nil(t, p)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", o)
	}
}

func TestZeroOptionsAreValid(t *testing.T) {
	p, err := New(Options{})
	require.NoError(t, err)
	defer p.Close()
	o := p.Options()
	assert.Equal(t, runtime.GOMAXPROCS(0), o.Workers)
	assert.Equal(t, Targeted, o.Wake, "an ungated pool's default is the faster policy")

	g, err := New(Options{Gated: true})
	require.NoError(t, err)
	defer g.Close()
	assert.Equal(t, Broadcast, g.Options().Wake, "a gated pool (the SGen round) keeps Broadcast")

	b, err := New(Options{Workers: 1, Wake: Broadcast})
	require.NoError(t, err)
	defer b.Close()
	assert.Equal(t, Broadcast, b.Options().Wake, "a named policy is used as given")
	assert.Equal(t, Options{}, (*Pool)(nil).Options())
}

// TestBroadcastOnAnUngatedPoolBroadcasts: Options{Wake: Broadcast} on an
// ungated pool wakes every parked worker for one job, as Stats shows: 4
// workers woken, at least 3 of them for nothing. (A zero Wake meant
// Broadcast, and an ungated pool ran Targeted instead: issue 41.)
func TestBroadcastOnAnUngatedPoolBroadcasts(t *testing.T) {
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 4, Backend: b, Wake: Broadcast})
			require.Equal(t, Broadcast, p.Options().Wake)
			waitParked(t, p)
			s0 := p.Stats()
			var n countJob
			require.NoError(t, p.Enqueue(&n))
			require.NoError(t, p.Join(timeoutCtx(t)))
			require.Eventually(t, func() bool { return p.Stats().Sub(s0).WorkersWoken >= 4 }, 10*time.Second, time.Millisecond,
				"one broadcast wakes every parked worker")
			waitParked(t, p)
			d := p.Stats().Sub(s0)
			assert.EqualValues(t, 1, d.EnqueueWakeCalls)
			assert.EqualValues(t, 4, d.WorkersWoken)
			assert.GreaterOrEqual(t, d.FutileWakeups, uint64(3))
		})
	}
}

func TestWakePolicyNamesAndDefault(t *testing.T) {
	assert.Equal(t, "default", DefaultWake.String())
	_, err := DefaultWake.MarshalText()
	assert.ErrorIs(t, err, ErrInvalidOptions, "a saved configuration names its policy")
	_, err = ParseWakePolicy("default")
	assert.ErrorIs(t, err, ErrInvalidOptions)
	assert.Equal(t, []string{"broadcast", "signal", "targeted", "spin"}, WakePolicyNames())
	for _, w := range allPolicies {
		text, err := w.MarshalText()
		require.NoError(t, err)
		var back WakePolicy
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, w, back)
	}
}

// TestErrorsSayEachThingOnce: New's messages name the package and the
// problem once.
func TestErrorsSayEachThingOnce(t *testing.T) {
	_, err := New(Options{Workers: -1})
	require.Error(t, err)
	assert.Equal(t, "workerpool: invalid options: Workers = -1, want 1..4096 (0: GOMAXPROCS)", err.Error())
	_, err = ParseWakePolicy("shout")
	assert.Equal(t, 1, strings.Count(err.Error(), "workerpool"), err.Error())
	_, err = New(Options{MaxQueued: -1})
	assert.ErrorIs(t, err, ErrInvalidOptions)
	_, err = New(Options{Backend: Native, MaxQueued: 8})
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.Equal(t, 1, strings.Count(err.Error(), "workerpool"), err.Error())
}

func TestParseNames(t *testing.T) {
	for _, b := range allBackends {
		got, err := ParseBackend(b.String())
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
	for _, w := range allPolicies {
		got, err := ParseWakePolicy(w.String())
		require.NoError(t, err)
		assert.Equal(t, w, got)
	}
	for _, q := range allQueues {
		got, err := ParseQueueLayout(q.String())
		require.NoError(t, err)
		assert.Equal(t, q, got)
	}
	_, err := ParseQueueLayout("ring")
	assert.ErrorIs(t, err, ErrInvalidOptions)
	assert.Equal(t, "QueueLayout(3)", QueueLayout(3).String())
	got, err := ParseWakePolicy("TARGETED")
	require.NoError(t, err)
	assert.Equal(t, Targeted, got)
	_, err = ParseBackend("fibers")
	assert.ErrorIs(t, err, ErrInvalidOptions)
	_, err = ParseWakePolicy("shout")
	assert.ErrorIs(t, err, ErrInvalidOptions)
	assert.Equal(t, "Backend(5)", Backend(5).String())
	assert.Equal(t, "WakePolicy(-2)", WakePolicy(-2).String())
}

func TestEveryJobRunsOnceAndJoinWaits(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		for _, gated := range []bool{false, true} {
			p := newPool(t, Options{Workers: 4, Backend: c.b, Wake: c.w, Queue: c.q, Gated: gated})
			ctx := timeoutCtx(t)
			const n = 200
			js := make([]countJob, n)
			batch := make([]jobs.Job, 0, n)
			for round := range 3 {
				for i := range js[:n/2] {
					require.NoError(t, p.Enqueue(&js[i]))
				}
				batch = batch[:0]
				for i := n / 2; i < n; i++ {
					batch = append(batch, &js[i])
				}
				require.NoError(t, p.EnqueueBatch(batch))
				p.Start()
				require.NoError(t, p.Join(ctx))
				for i := range js {
					require.EqualValues(t, round+1, js[i].runs.Load(), "job %d after round %d", i, round)
				}
			}
			s := p.Stats()
			assert.EqualValues(t, 3*n, s.TotalJobsRun())
			assert.Len(t, s.JobsRun, 4)
			require.NoError(t, p.Close())
		}
	})
}

func TestGatedPoolRunsNothingBeforeStart(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var j countJob
		for range 10 {
			require.NoError(t, p.Enqueue(&j))
		}
		time.Sleep(5 * time.Millisecond) // give wrongly woken workers a chance to misbehave
		assert.Zero(t, j.runs.Load())
		p.Start()
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 10, j.runs.Load())

		// Join closed the gate again: the next round waits for Start.
		require.NoError(t, p.Enqueue(&j))
		time.Sleep(5 * time.Millisecond)
		assert.EqualValues(t, 10, j.runs.Load())
		p.Start()
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 11, j.runs.Load())
	})
}

// Enqueue-side costs on a gated pool are a property of the policy, not of
// timing: Broadcast and Signal make one wake call per enqueue call; Targeted
// and Spin make none while the gate is closed and one at Start. On the
// shared queue (SGen's model) a call is one lock acquisition: a 65-job batch
// is 1 lock and 1 wake call, 65 Enqueues are 65 and 65. On a sharded pool a
// call takes one shard lock, and the pool lock too when it must wake a
// sleeping worker (Broadcast and Signal, whose workers sleep behind the
// closed gate).
func TestEnqueueSideCountersAreExact(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 8, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		waitParked(t, p)
		wakesPerCall := uint64(1)
		if c.w == Targeted || c.w == Spin {
			wakesPerCall = 0
		}
		locksPerCall := uint64(1)
		if c.q == Sharded {
			locksPerCall += wakesPerCall
		}
		var j countJob
		batch := make([]jobs.Job, 65)
		for i := range batch {
			batch[i] = &j
		}
		ctx := timeoutCtx(t)

		before := p.Stats()
		require.NoError(t, p.EnqueueBatch(batch))
		d := p.Stats().Sub(before)
		assert.EqualValues(t, locksPerCall, d.EnqueueLockAcquisitions, "batch: lock acquisitions")
		assert.EqualValues(t, wakesPerCall, d.EnqueueWakeCalls, "batch: wake calls")
		startBefore := p.coord.wakeCalls.Load()
		p.Start()
		assert.EqualValues(t, 1, p.coord.wakeCalls.Load()-startBefore, "Start: one wake call")
		require.NoError(t, p.Join(ctx))
		assert.EqualValues(t, 65, j.runs.Load())
		if c.b == Goroutines {
			assert.Zero(t, p.Stats().FutexCalls)
		}

		waitParked(t, p)
		before = p.Stats()
		for range 65 {
			require.NoError(t, p.Enqueue(&j))
		}
		d = p.Stats().Sub(before)
		assert.EqualValues(t, 65*locksPerCall, d.EnqueueLockAcquisitions, "per-job: lock acquisitions")
		assert.EqualValues(t, 65*wakesPerCall, d.EnqueueWakeCalls, "per-job: wake calls")
		p.Start()
		require.NoError(t, p.Join(ctx))
		assert.EqualValues(t, 130, j.runs.Load())
	})
}

// StartBatch is a gated round's one lock acquisition and one wake: on the
// shared queue the batch and the gate cost one enqueue-side lock and, for
// every policy, one wake call (Targeted and Spin wake at the gate, as
// Start does), where EnqueueBatch then Start cost two locks and, under
// Broadcast and Signal, two wake calls (TestEnqueueSideCountersAreExact).
// A sharded pool's StartBatch is EnqueueBatch then Start.
func TestStartBatchIsOneLockAndOneWake(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 8, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		ctx := timeoutCtx(t)
		var j countJob
		batch := make([]jobs.Job, 65)
		for i := range batch {
			batch[i] = &j
		}
		for round := range 2 { // Join closes the gate: the second round is gated again
			waitParked(t, p)
			before, coordBefore := p.Stats(), p.coord.wakeCalls.Load()
			require.NoError(t, p.StartBatch(batch))
			d, coordWakes := p.Stats().Sub(before), p.coord.wakeCalls.Load()-coordBefore
			require.NoError(t, p.Join(ctx))
			assert.EqualValues(t, 65*(round+1), j.runs.Load())
			if c.q == Shared {
				assert.EqualValues(t, 1, d.EnqueueLockAcquisitions, "lock acquisitions")
				assert.EqualValues(t, 1, d.EnqueueWakeCalls, "wake calls")
				assert.Zero(t, coordWakes, "no separate Start")
				continue
			}
			wakes := uint64(1) // the enqueue's wake: only Broadcast and Signal wake behind the gate
			if c.w == Targeted || c.w == Spin {
				wakes = 0
			}
			assert.EqualValues(t, 1+wakes, d.EnqueueLockAcquisitions, "sharded: lock acquisitions")
			assert.EqualValues(t, wakes, d.EnqueueWakeCalls, "sharded: wake calls")
			assert.EqualValues(t, 1, coordWakes, "sharded: Start's wake")
		}
	})
}

// A StartBatch that fails leaves the gate closed; an empty one opens it;
// on an ungated pool it is EnqueueBatch.
func TestStartBatchGate(t *testing.T) {
	p := newPool(t, Options{Workers: 2, Gated: true})
	var j countJob
	require.NoError(t, p.Enqueue(&j))
	assert.ErrorIs(t, p.StartBatch([]jobs.Job{&j, nil}), ErrNilJob)
	time.Sleep(5 * time.Millisecond) // a wrongly opened gate would let the job run
	assert.Zero(t, j.runs.Load(), "a rejected StartBatch opened the gate")
	require.NoError(t, p.StartBatch(nil))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 1, j.runs.Load(), "an empty StartBatch opens the gate")

	u := newPool(t, Options{Workers: 2})
	require.NoError(t, u.StartBatch([]jobs.Job{&j, &j}))
	require.NoError(t, u.Join(timeoutCtx(t)))
	assert.EqualValues(t, 3, j.runs.Load())
}

func TestJoinReportsPanicsAndPoolKeepsWorking(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		boom := errors.New("boom")
		var ok countJob
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { panic(boom) })))
		require.NoError(t, p.Enqueue(&ok))
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { panic("plain value") })))
		err := p.Join(timeoutCtx(t))
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrJobPanicked)
		assert.ErrorIs(t, err, boom)
		var pe *PanicError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, err.Error(), "plain value")
		assert.NotEmpty(t, pe.Stack)

		// The panics were reported once; the pool still works.
		require.NoError(t, p.Enqueue(&ok))
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 2, ok.runs.Load())
		assert.EqualValues(t, 4, p.Stats().TotalJobsRun())
	})
}

func TestJobCallingGoexitIsReportedAndReplaced(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 1, Backend: c.b, Wake: c.w, Queue: c.q})
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { runtimeGoexit() })))
		err := p.Join(timeoutCtx(t))
		assert.ErrorIs(t, err, ErrJobPanicked)
		assert.ErrorIs(t, err, ErrJobGoexit)
		var j countJob
		require.NoError(t, p.Enqueue(&j))
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 1, j.runs.Load())
		require.NoError(t, p.Close())
	})
}

func TestJoinHonoursContext(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 1, Backend: c.b, Wake: c.w, Queue: c.q})
		release := make(chan struct{})
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { <-release })))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		err := p.Join(ctx)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		close(release)
		require.NoError(t, p.Join(timeoutCtx(t)))
	})
}

func TestCloseDrainsIsIdempotentAndRefusesWork(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		for _, gated := range []bool{false, true} {
			p, err := New(Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q, Gated: gated})
			require.NoError(t, err)
			var j countJob
			var slow atomic.Int64
			for range 50 {
				require.NoError(t, p.Enqueue(&j))
			}
			require.NoError(t, p.Enqueue(jobs.Func(func(int) { time.Sleep(time.Millisecond); slow.Add(1) })))
			batch := []jobs.Job{&j, &j, &j}
			require.NoError(t, p.EnqueueBatch(batch))
			require.NoError(t, p.Close())
			assert.EqualValues(t, 53, j.runs.Load(), "Close must run every accepted job")
			assert.EqualValues(t, 1, slow.Load())
			require.NoError(t, p.Close())
			assert.ErrorIs(t, p.Enqueue(&j), ErrClosed)
			assert.ErrorIs(t, p.EnqueueBatch(batch), ErrClosed)
			assert.ErrorIs(t, p.StartBatch(batch), ErrClosed)
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 54, p.Stats().TotalJobsRun())
		}
	})
}

func TestNilJobsAreRejected(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var j countJob
	assert.ErrorIs(t, p.Enqueue(nil), ErrNilJob)
	assert.ErrorIs(t, p.EnqueueBatch([]jobs.Job{&j, nil}), ErrNilJob)
	require.NoError(t, p.EnqueueBatch(nil))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Zero(t, j.runs.Load(), "a rejected batch queues nothing")
}

func TestEnqueueBatchCopiesTheSlice(t *testing.T) {
	p := newPool(t, Options{Workers: 2, Gated: true})
	var a, b countJob
	batch := []jobs.Job{&a, &a}
	require.NoError(t, p.EnqueueBatch(batch))
	batch[0], batch[1] = &b, &b // reuse before the jobs run
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 2, a.runs.Load())
	assert.Zero(t, b.runs.Load())
}

func TestWorkerIndexIsInRange(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q})
		var bad atomic.Int64
		for range 100 {
			require.NoError(t, p.Enqueue(jobs.Func(func(worker int) {
				if worker < 0 || worker >= 3 {
					bad.Add(1)
				}
			})))
		}
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Zero(t, bad.Load())
		s := p.Stats()
		assert.EqualValues(t, 100, s.TotalJobsRun())
	})
}

func TestStatsSub(t *testing.T) {
	a := Stats{LockAcquisitions: 10, FutexCalls: 7, JobsRun: []uint64{5, 6}}
	b := Stats{LockAcquisitions: 4, FutexCalls: 2, JobsRun: []uint64{1, 2}}
	d := a.Sub(b)
	assert.EqualValues(t, 6, d.LockAcquisitions)
	assert.EqualValues(t, 5, d.FutexCalls)
	assert.Equal(t, []uint64{4, 4}, d.JobsRun)
	assert.EqualValues(t, 8, d.TotalJobsRun())
}

type recordingObserver struct {
	starts, ends, enqueued, woken, futile atomic.Int64
}

func (o *recordingObserver) JobStart(int)   { o.starts.Add(1) }
func (o *recordingObserver) JobEnd(int)     { o.ends.Add(1) }
func (o *recordingObserver) Enqueued(n int) { o.enqueued.Add(int64(n)) }
func (o *recordingObserver) Woken(int)      { o.woken.Add(1) }
func (o *recordingObserver) FutileWake(int) { o.futile.Add(1) }

func TestObserverSeesEveryEvent(t *testing.T) {
	obs := new(recordingObserver)
	p := newPool(t, Options{Workers: 2, Gated: true, Observer: obs})
	var j countJob
	require.NoError(t, p.Enqueue(&j))
	require.NoError(t, p.EnqueueBatch([]jobs.Job{&j, &j}))
	p.Start()
	require.NoError(t, p.Join(timeoutCtx(t)))
	require.NoError(t, p.Close())
	s := p.Stats()
	assert.EqualValues(t, 3, obs.enqueued.Load())
	assert.EqualValues(t, 3, obs.starts.Load())
	assert.EqualValues(t, 3, obs.ends.Load())
	assert.EqualValues(t, s.WorkersWoken, obs.woken.Load())
	assert.EqualValues(t, s.FutileWakeups, obs.futile.Load())
}

func TestJoinWithNothingPendingWakesNobody(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		waitParked(t, p)
		before := p.Stats()
		require.NoError(t, p.Join(timeoutCtx(t)))
		d := p.Stats().Sub(before)
		assert.Zero(t, d.WakeCalls)
		assert.EqualValues(t, 1, d.LockAcquisitions)
	})
}

// Steady-state rounds allocate nothing: the queue's block is reused, jobs are stored
// as the caller's interface values, and Join without a cancelable context
// registers no callback.
func TestRoundsDoNotAllocate(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var j countJob
		batch := []jobs.Job{&j, &j, &j, &j, &j, &j, &j, &j}
		ctx := context.Background()
		round := func() {
			_ = p.EnqueueBatch(batch)
			for _, x := range batch {
				_ = p.Enqueue(x)
			}
			p.Start()
			_ = p.Join(ctx)
		}
		round() // allocate the queue's first block
		assert.Zero(t, testing.AllocsPerRun(50, round))
	})
}

// TestEdgeContracts: an empty batch after Close is refused as any batch
// is; a nil jobs.Func is a nil job, refused at the door rather than a
// panic on a worker; a job's Goexit is reported as ErrJobGoexit.
func TestEdgeContracts(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	require.ErrorIs(t, p.Enqueue(jobs.Func(nil)), ErrNilJob)
	require.ErrorIs(t, p.EnqueueBatch([]jobs.Job{jobs.Func(func(int) {}), jobs.Func(nil)}), ErrNilJob)
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Zero(t, p.Stats().TotalJobsRun(), "a batch with a nil job is refused whole")

	require.NoError(t, p.Enqueue(jobs.Func(func(int) { runtimeGoexit() })))
	require.ErrorIs(t, p.Join(timeoutCtx(t)), ErrJobGoexit)

	require.NoError(t, p.Close())
	require.ErrorIs(t, p.EnqueueBatch(nil), ErrClosed)
	require.ErrorIs(t, p.StartBatch(nil), ErrClosed)
}
