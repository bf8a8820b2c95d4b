package workerpool

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// target is what a Join waits for: every job accepted before it. On a
// shared queue that is one sequence number, the jobs pushed so far; on a
// sharded one, the jobs pushed so far to each shard.
type target struct {
	seq uint64
	vec []uint64 // sharded: per shard
}

// stackShards is how many shards a Join's target holds on its stack; larger
// pools allocate it.
const stackShards = 64

// targetNow returns the target of a Join starting now, its vector (sharded)
// in buf if it fits.
func (p *Pool) targetNow(buf *[stackShards]uint64) target {
	if p.shards == nil {
		return target{seq: p.pushed.Load() + p.in.reserved()}
	}
	vec := buf[:0]
	if len(p.shards) > len(buf) {
		vec = make([]uint64, 0, len(p.shards))
	}
	for i := range p.shards {
		vec = append(vec, p.shards[i].pushed.Load())
	}
	return target{vec: vec}
}

// Join waits until every job enqueued before the call has run, then returns
// the panics of jobs that panicked since the previous Join returned (each a
// *PanicError wrapping ErrJobPanicked, combined with errors.Join), or nil.
// If ctx ends first, Join returns an error wrapping ctx.Err() and keeps the
// panics for the next Join.
//
// On an ungated pool, a Join whose jobs are done and that has no panics to
// report takes no lock. A Join whose remaining work is small enough to run
// at once beside it (its untaken jobs plus the running grabs fewer than
// GOMAXPROCS) polls for up to 20 µs before it sleeps (Stats.JoinSpins,
// Stats.JoinSleeps).
//
// On a gated pool Join opens the gate if it is closed and jobs it waits for
// are queued (it would otherwise wait for jobs that may not run), and the
// gate closes again when the last concurrent Join returns — whether it
// returns nil, panics or ctx's error — so that the next round's enqueues
// wait for the next Start. Jobs still queued then (those a failed Join left,
// those a job enqueued that no Join was waiting for) wait behind the gate
// for the next Start, Join or Close. Panics belong to the pool, not to a
// caller: with several goroutines using one pool, the next Join to return
// reports them, whoever's jobs they were. After Close, Join returns at
// once. A job must not call Join: it would wait for itself.
//
// Join keeps at most 64 panics between two Joins; beyond that it reports
// how many it dropped, as one more error that is not a *PanicError.
func (p *Pool) Join(ctx context.Context) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if p.nat != nil {
		return p.nat.join(ctx)
	}
	if p.calledFromJob(ctx) {
		return fmt.Errorf("workerpool: join: %w", ErrCalledFromJob)
	}
	c := &p.coord
	var buf [stackShards]uint64
	t := p.targetNow(&buf)
	if !p.opts.Gated && p.spinUntilDone(&t, c) && p.npanics.Load() == 0 {
		return nil // done without the lock: nothing to report, no gate to close
	}
	p.lock(c)
	p.joining++
	if !p.gateOpen.Load() && p.untaken(&t) > 0 { // jobs only running need no gate: they finish as they are
		d := p.openGateLocked(c)
		p.unlock(c)
		p.wakeAfterUnlock(d, c)
		p.spinUntilDone(&t, c)
		p.lock(c)
	} else if p.opts.Gated && !p.doneUpTo(&t) && p.spinWorthwhile(&t) {
		p.unlock(c)
		p.spinUntilDone(&t, c)
		p.lock(c)
	}
	err := p.sleepUntilDoneLocked(ctx, &t, c)
	p.joining--
	if p.joining == 0 && p.opts.Gated && !p.closed.Load() {
		p.gateOpen.Store(false)
	}
	if err == nil {
		err = p.takePanicsLocked()
	} else {
		err = fmt.Errorf("workerpool: join: %w", err)
	}
	p.unlock(c)
	return err
}

// doneUpTo reports whether every job of t has finished: all were taken
// from the queue (FIFO, per shard when sharded) and no grab holding one is
// still running. It needs no lock: a grab's taker publishes it as running
// in its worker's state before it advances popped, and the worker clears
// running only after the grab ran.
func (p *Pool) doneUpTo(t *target) bool {
	if p.shards != nil {
		return p.shardsDoneUpTo(t.vec)
	}
	if p.popped.Load() < t.seq {
		return false
	}
	for i := range p.workers {
		if r := p.workers[i].state.Load() & runningMask; r != 0 && r-1 < t.seq {
			return false
		}
	}
	return true
}

// untaken returns how many jobs of t have not been taken from the queue.
func (p *Pool) untaken(t *target) uint64 {
	if p.shards == nil {
		return t.seq - min(p.popped.Load(), t.seq)
	}
	var n uint64
	for i := range p.shards {
		n += t.vec[i] - min(p.shards[i].popped.Load(), t.vec[i])
	}
	return n
}

// spinWorthwhile reports whether a Join waiting for t should poll before
// it sleeps: so little work is in flight — jobs of t not yet taken, plus
// grabs running — that each piece can run on a P of its own beside the
// Join's (fewer than GOMAXPROCS in all), so the polling Join takes no P a
// worker needs; and its workers do not need the Join's P, which holds for
// goroutine workers and for worker threads that keep their Ps (GOMAXPROCS
// > workers, or Spin, whose idle workers spin holding one; in the handoff
// regime a woken worker thread may be waiting for the very P the Join
// would spin on). A gated SGen round (65 jobs on 8 workers) never
// qualifies: its Join sleeps at once, as before.
func (p *Pool) spinWorthwhile(t *target) bool {
	procs := uint64(p.procs.Load())
	if procs < 2 {
		return false
	}
	inFlight := p.untaken(t)
	for i := range p.workers {
		if inFlight >= procs {
			return false
		}
		if p.workers[i].state.Load()&runningMask != 0 {
			inFlight++
		}
	}
	if inFlight >= procs {
		return false
	}
	return p.opts.Backend == Goroutines || int(procs) > len(p.workers) || p.opts.Wake == Spin
}

// yieldEvery is how many polls a spinning Join makes between chances to
// yield (kit.pause). A goroutine worker woken through the Go scheduler was
// readied onto the waker's P (runnext), which a polling Join would
// otherwise keep from it for microseconds, until another P stole it; so
// while its jobs are still queued, a Join yields at every poll — except
// under Spin, whose workers mostly spin on other Ps, where it yields every
// yieldEvery polls, whether its jobs are queued or already handed to the
// listener. The latter matters: a listener that yielded its own P can end
// up queued behind the Join's goroutine on one P while the other P idles,
// and a Join that never yields then starves the very job it waits for
// until its spin times out and it sleeps (a runtime trace of
// TestRoundTripProtocol's trips showed the caller and the listener on one
// P, the other P idle, and Join sleeps on many trips).
const yieldEvery = 8

// spinUntilDone polls, without the lock, until every job of t has
// finished, for at most spinFor and only if spinWorthwhile. It reports
// whether they finished; a wait that needed polling is counted in
// c.joinSpins.
func (p *Pool) spinUntilDone(t *target, c *counters) bool {
	if p.doneUpTo(t) {
		return true
	}
	if !p.spinWorthwhile(t) {
		return false
	}
	var start time.Time
	for i := 1; ; i++ {
		if p.opts.Wake == Spin {
			p.kit.pause(i%yieldEvery == 0)
		} else {
			p.kit.pause(p.untaken(t) > 0)
		}
		if p.doneUpTo(t) {
			c.joinSpins.Add(1)
			return true
		}
		if i%64 == 0 && spunFor(&start) > spinFor {
			return false
		}
	}
}

// sleepUntilDoneLocked sleeps on done until every job of t has finished or
// ctx ends, and returns ctx's error in the latter case. It registers in
// joinWaiters before its last look at doneUpTo: a worker that retires a
// grab without the lock (a Spin handoff, a sharded pool) clears running
// before it reads joinWaiters, so either the worker sees this Join and
// retires under the lock, waking it, or this Join sees the grab done.
func (p *Pool) sleepUntilDoneLocked(ctx context.Context, t *target, c *counters) error {
	var stop func() bool
	var vec []uint64 // sharded: t's vector where wakers can read it
	defer func() {
		if stop != nil {
			stop()
		}
		if vec != nil {
			p.freeVecs = append(p.freeVecs, vec)
		}
	}()
	for !p.doneUpTo(t) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if stop == nil && ctx.Done() != nil {
			stop = context.AfterFunc(ctx, p.wakeJoiners)
		}
		p.joinWaiters.Add(1)
		if p.doneUpTo(t) {
			p.joinWaiters.Add(-1)
			break
		}
		if p.shards == nil {
			p.joinTarget = min(p.joinTarget, t.seq)
		} else {
			if vec == nil {
				vec = p.vecLocked(t.vec)
			}
			p.sleepingVecs = append(p.sleepingVecs, vec)
		}
		c.joinSleeps.Add(1)
		procs := p.refreshProcs()
		p.countWait(c, procs, p.done.wait())
		c.locks.Add(1)
		p.joinWaiters.Add(-1)
		p.unlistVecLocked(vec)
	}
	return nil
}

// unlistVecLocked removes a sleeping Join's vector from sleepingVecs, where
// it stays if that Join was woken for its context rather than because a
// Join was done.
func (p *Pool) unlistVecLocked(vec []uint64) {
	if vec == nil {
		return
	}
	for i, v := range p.sleepingVecs {
		if &v[0] == &vec[0] {
			last := len(p.sleepingVecs) - 1
			p.sleepingVecs[i], p.sleepingVecs[last] = p.sleepingVecs[last], nil
			p.sleepingVecs = p.sleepingVecs[:last]
			return
		}
	}
}

// vecLocked returns a copy of vec in a vector from the pool's free list,
// so that steady-state Joins on a sharded pool allocate nothing.
func (p *Pool) vecLocked(vec []uint64) []uint64 {
	var v []uint64
	if n := len(p.freeVecs); n > 0 {
		v, p.freeVecs = p.freeVecs[n-1], p.freeVecs[:n-1]
	} else {
		v = make([]uint64, len(vec))
	}
	copy(v, vec)
	return v
}

// wakeDoneJoinsLocked wakes the sleeping Joins once one of them is done:
// on a shared queue, once the least of their targets is reached. Woken
// Joins that are not done register again.
func (p *Pool) wakeDoneJoinsLocked(c *counters) {
	if p.joinWaiters.Load() == 0 {
		return
	}
	if p.shards == nil {
		if p.joinTarget != ^uint64(0) && p.doneUpTo(&target{seq: p.joinTarget}) {
			p.joinTarget = ^uint64(0)
			c.addFutex(p.done.wake(wakeAll))
		}
		return
	}
	for _, v := range p.sleepingVecs {
		if p.shardsDoneUpTo(v) {
			p.sleepingVecs = p.sleepingVecs[:0]
			c.addFutex(p.done.wake(wakeAll))
			return
		}
	}
}

// wakeJoiners wakes sleeping Joins so they notice their context ended.
func (p *Pool) wakeJoiners() {
	p.lock(&p.coord)
	p.coord.addFutex(p.done.wake(wakeAll))
	p.unlock(&p.coord)
}

func (p *Pool) takePanicsLocked() error {
	err := panicsError(p.panics, p.lostPanics)
	p.panics, p.lostPanics = nil, 0
	p.npanics.Store(0)
	return err
}

// panicsError joins the kept panics and, if lost > 0, an error counting
// the ones not kept; nil when there are none.
func panicsError(kept []error, lost int) error {
	if lost > 0 {
		kept = append(kept, fmt.Errorf("workerpool: %d more job panics not kept: %w", lost, ErrJobPanicked))
	}
	return errors.Join(kept...)
}
