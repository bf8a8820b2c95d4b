package workerpool

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoJobWaitsBehindASlowOne: 4 workers, one batch of a slow job then
// 1,000 fast ones. The slow job blocks until every fast job has run, so the
// fast jobs of its worker's grab must be run by the others (stolen); if
// they are not, the slow job gives up after a deadline and the test fails.
func TestNoJobWaitsBehindASlowOne(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 4, Backend: c.b, Wake: c.w, Queue: c.q})
		const fast = 1000
		var ran atomic.Int64
		allFast := make(chan struct{})
		var gaveUp atomic.Bool
		var ranAtGiveUp atomic.Int64
		batch := make([]jobs.Job, 0, fast+1)
		batch = append(batch, jobs.Func(func(int) {
			select {
			case <-allFast:
			case <-time.After(20 * time.Second):
				ranAtGiveUp.Store(ran.Load())
				gaveUp.Store(true)
			}
		}))
		for range fast {
			batch = append(batch, jobs.Func(func(int) {
				if ran.Add(1) == fast {
					close(allFast)
				}
			}))
		}
		require.NoError(t, p.EnqueueBatch(batch))
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.False(t, gaveUp.Load(), "fast jobs waited behind the slow one: %d of %d had run at the deadline", ranAtGiveUp.Load(), fast)
		assert.EqualValues(t, fast, ran.Load())
		st := p.Stats()
		assert.EqualValues(t, fast+1, st.TotalJobsRun())
		assert.NotZero(t, st.GrabSteals, "the slow job's grab held fast jobs: they were stolen")
	})
}

// TestGatedPoolsDoNotSteal: the SGen round keeps its grabs.
func TestGatedPoolsDoNotSteal(t *testing.T) {
	p := newPool(t, Options{Workers: 4, Gated: true})
	var n countJob
	batch := make([]jobs.Job, 500)
	for i := range batch {
		batch[i] = &n
	}
	require.NoError(t, p.StartBatch(batch))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Zero(t, p.Stats().GrabSteals)
	assert.EqualValues(t, 500, n.runs.Load())
}

// TestDiscardTakesGrabs: on an ungated pool Discard also removes the
// unstarted jobs of a worker's grab; they never run.
func TestDiscardTakesGrabs(t *testing.T) {
	for _, q := range allQueues {
		t.Run(q.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Wake: Targeted, Queue: q})
			started, release := make(chan struct{}), make(chan struct{})
			var n countJob
			batch := []jobs.Job{jobs.Func(func(int) { close(started); <-release })}
			for range 40 {
				batch = append(batch, &n)
			}
			require.NoError(t, p.EnqueueBatch(batch))
			<-started // the worker holds a grab of 20: the blocker and 19 more
			assert.Equal(t, 40, p.Discard())
			close(release)
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.Zero(t, n.runs.Load())
			st := p.Stats()
			assert.EqualValues(t, 1, st.TotalJobsRun())
			assert.EqualValues(t, 40, st.Dropped)
			assert.EqualValues(t, 41, st.Submitted)
			assert.Zero(t, st.Queued)
		})
	}
}

// TestOwnerClaimsInDoublingRuns: with no thief, the owner of a grab of 64
// claims runs of 1, 2, 4, … jobs — 6 atomic adds, not 63 — and once a
// thief has lowered end it claims one job at a time; it never runs a job
// the thief took.
func TestOwnerClaimsInDoublingRuns(t *testing.T) {
	var w worker
	w.held = w.buf[:MaxGrab]
	w.startClaims(MaxGrab)
	claims := 0
	for i := 0; i < MaxGrab; i++ {
		if i >= int(w.limit) {
			require.True(t, w.claimFrom(i))
			claims++
		}
	}
	assert.Equal(t, 6, claims)

	w.startClaims(MaxGrab)
	for i := 1; i < 8; i++ { // claims [1,2), [2,4), [4,8)
		if i >= int(w.limit) {
			require.True(t, w.claimFrom(i))
		}
	}
	c, from, ok := w.takeTail(w.claim.Load(), -1) // a thief takes the newer half of [8, 64)
	require.True(t, ok)
	assert.Equal(t, 36, from)
	w.claim.And(^uint64(claimBusy))
	_ = c
	ran := 8
	for i := 8; i < MaxGrab; i++ {
		if i >= int(w.limit) && !w.claimFrom(i) {
			break
		}
		ran++
		if i >= 16 {
			assert.Equal(t, uint8(1), w.window, "one job at a time after the thief")
		}
	}
	assert.Equal(t, 36, ran, "the owner stops where the thief's part begins")
}

// handOffOnIdlePool makes an unstarted two-worker Spin pool with queued
// jobs of one count and worker 0 listening, and hands worker 0 a grab: it
// returns with the pool's lock held, the listener, the count and the
// grab's size. Nothing runs until the test runs it.
func handOffOnIdlePool(t *testing.T, queued int) (p *Pool, owner *worker, n *countJob, k int) {
	p = build(Options{Workers: 2, Wake: Spin}.resolved(), goKit{}, ingressCells)
	n = &countJob{}
	batch := make([]jobs.Job, queued)
	for i := range batch {
		batch[i] = n
	}
	p.q.pushAll(batch)
	p.pushed.Add(uint64(len(batch)))
	owner = &p.workers[0]
	p.spinner = owner.id
	owner.state.Store(mailListening << mailShift)
	p.lock(&p.enq)
	require.True(t, p.handOffLocked(&p.enq))
	require.Equal(t, mailHanded, mailOf(owner.state.Load()))
	return p, owner, n, grabSize(queued, 2)
}

// TestHandedGrabIsStealableBeforeItsListenerRuns: a grab handed to a Spin
// listener is stealable as soon as the enqueuer has handed it, before the
// listener claims anything. If the listener published it itself, a
// listener descheduled after the handoff would let the others drain the
// queue, find nothing to steal and sleep, stranding the grab's jobs
// behind its first one (the flake this test pins down).
func TestHandedGrabIsStealableBeforeItsListenerRuns(t *testing.T) {
	p, owner, n, k := handOffOnIdlePool(t, 200)
	thief := &p.workers[1]
	assert.Equal(t, k-1, p.stealableJobs(), "all but job 0, which is the listener's")
	p.q.drop(p.q.len()) // the other workers drained the queue
	p.popped.Store(p.pushed.Load())
	require.True(t, p.stealLocked(thief), "the handed grab is stolen from before its listener runs")
	p.unlock(&p.enq)
	assert.Equal(t, (k-1)-(k-1)/2, len(thief.held), "the newer half of the unclaimed jobs")

	// The listener now runs what is left to it, and no job twice.
	require.True(t, p.runHandedGrab(owner, owner.state.Load()))
	p.runGrab(thief)
	assert.EqualValues(t, k, n.runs.Load())
}

// TestWithdrawnClaimsLeaveNothingStealable: a handoff whose CAS fails (the
// listener stopped listening first) withdraws the claims it published, so
// the grab, still queued, is nowhere stealable.
func TestWithdrawnClaimsLeaveNothingStealable(t *testing.T) {
	p := build(Options{Workers: 2, Wake: Spin}.resolved(), goKit{}, ingressCells)
	w := &p.workers[0]
	w.buf[0], w.buf[1] = &countJob{}, &countJob{}
	w.publishClaims(2)
	require.Equal(t, 1, p.stealableJobs())
	w.withdrawClaims()
	assert.Zero(t, p.stealableJobs())
	assert.False(t, p.stealLocked(&p.workers[1]))
}

// TestDiscardTakesAHandedGrabBeforeItsListenerRuns: Discard removes the
// jobs of a grab handed to a Spin listener that has not started them, all
// but job 0, which the listener then runs alone and counts as its grab.
func TestDiscardTakesAHandedGrabBeforeItsListenerRuns(t *testing.T) {
	p, owner, n, k := handOffOnIdlePool(t, 40)
	assert.Equal(t, k-1, p.dropGrabsLocked(nil))
	p.unlock(&p.enq)

	require.True(t, p.runHandedGrab(owner, owner.state.Load()))
	assert.EqualValues(t, 1, n.runs.Load(), "job 0 only")
	assert.EqualValues(t, 1, owner.c.jobs.Load())
	assert.Zero(t, p.stealableJobs())
}
