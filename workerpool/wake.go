package workerpool

// deferredWake is a wake decided under the queue lock and made after it is
// released, so that the woken worker does not immediately block on the lock
// its waker still holds.
type deferredWake struct {
	unpark  int // worker to unpark, or -1
	release int // Spin units to release
	cond    int // waiters to wake on the work condition (wakeAll: every one)
}

var noWake = deferredWake{unpark: -1}

func (p *Pool) wakeAfterUnlock(d deferredWake, c *counters) {
	if d.cond > 0 {
		c.addFutex(p.work.wake(d.cond))
	}
	if d.unpark >= 0 {
		c.addFutex(p.workers[d.unpark].park.unpark())
	}
	if d.release > 0 {
		c.addFutex(p.sema.release(d.release))
	}
}

// wakeLocked applies the wake policy to n newly queued jobs. Broadcast and
// Signal wake under the lock, as SGen's pool does, and ignore the gate;
// Targeted and Spin wake nobody while the gate is closed.
func (p *Pool) wakeLocked(n int, c *counters) deferredWake {
	return p.wakeCondNow(p.decideWakeLocked(n, c), c)
}

// wakeCondNow makes d's wake on the work condition at once, under the
// lock, and leaves the rest of d for after the unlock.
func (p *Pool) wakeCondNow(d deferredWake, c *counters) deferredWake {
	if d.cond > 0 {
		c.addFutex(p.work.wake(d.cond))
		d.cond = 0
	}
	return d
}

// decideWakeLocked counts the policy's wake for n newly queued jobs and
// returns what is left to make: Broadcast's and Signal's wake on the work
// condition, Targeted's unpark, Spin's units (a hand-off to Spin's
// listener is made here).
func (p *Pool) decideWakeLocked(n int, c *counters) deferredWake {
	switch p.opts.Wake {
	case Broadcast:
		c.wakeCalls.Add(1)
		return deferredWake{unpark: -1, cond: wakeAll}
	case Signal:
		c.wakeCalls.Add(1)
		return deferredWake{unpark: -1, cond: min(n, len(p.workers))}
	case Targeted:
		return deferredWake{unpark: p.nextTargetLocked(c)}
	case Spin:
		return p.spinWakeLocked(n, c)
	}
	return noWake
}

// nextTargetLocked picks the parked worker to wake next under Targeted, or
// -1: a worker is woken only while runnable jobs outnumber the workers
// already on their way.
func (p *Pool) nextTargetLocked(c *counters) int {
	if len(p.idle) == 0 || !p.gateOpen.Load() || p.queuedLocked() <= int(p.waking.Load()) {
		return -1
	}
	id := p.idle[len(p.idle)-1]
	p.idle = p.idle[:len(p.idle)-1]
	if p.in != nil {
		p.sleepers.Add(-1)
	}
	p.waking.Add(1)
	c.wakeCalls.Add(1)
	return id
}

// spinWakeLocked is the Spin policy's wake for n newly runnable jobs: a
// grab handed to the listening spinner, if any, and units of the semaphore
// for the rest — at most one per worker outstanding (the CLR thread pool's
// cap on outstanding requests). It is one wake call, counted once, and
// does nothing while the gate is closed.
func (p *Pool) spinWakeLocked(n int, c *counters) deferredWake {
	if !p.gateOpen.Load() {
		return noWake
	}
	handed := p.handOffLocked(c)
	d := noWake
	d.release = p.reserveUnits(min(n, p.queuedLocked()))
	if handed || d.release > 0 {
		c.wakeCalls.Add(1)
	}
	return d
}

// queuedLocked returns how many jobs are queued: the shared queue's length
// (with its ingress's positions, a job still being written included), or
// the sum over the shards (read without their locks).
func (p *Pool) queuedLocked() int {
	if p.shards != nil {
		return p.queuedSharded()
	}
	if p.in != nil {
		return p.q.len() + p.in.queued()
	}
	return p.q.len()
}

// hasWorkLocked reports whether a worker could take a job now.
func (p *Pool) hasWorkLocked() bool {
	return p.gateOpen.Load() && p.queuedLocked() > 0
}

// reserveUnits reserves up to n Spin units, at most one per worker
// outstanding (the CLR thread pool's cap on outstanding requests), and
// returns how many it reserved. A CAS loop, so that sharded enqueuers can
// reserve without the lock.
func (p *Pool) reserveUnits(n int) int {
	for {
		out := p.outstanding.Load()
		k := min(int32(n), int32(len(p.workers))-out)
		if k <= 0 {
			return 0
		}
		if p.outstanding.CompareAndSwap(out, out+k) {
			return int(k)
		}
	}
}

// retireUnit retires a Spin unit that a worker took, after which it looks
// for work: Close releases units it did not reserve, hence the floor.
func (p *Pool) retireUnit() {
	for {
		out := p.outstanding.Load()
		if out <= 0 || p.outstanding.CompareAndSwap(out, out-1) {
			return
		}
	}
}

// wakeEveryoneLocked wakes every waiting worker for Close, and returns how
// many Spin units to release after unlocking: one for every worker that may
// spin or sleep.
func (p *Pool) wakeEveryoneLocked(c *counters) (release int) {
	switch p.opts.Wake {
	case Broadcast, Signal:
		c.wakeCalls.Add(1)
		c.addFutex(p.work.wake(wakeAll))
	case Targeted:
		for _, id := range p.idle {
			c.wakeCalls.Add(1)
			c.addFutex(p.workers[id].park.unpark())
		}
		p.waking.Add(int32(len(p.idle)))
		if p.in != nil {
			p.sleepers.Add(-int32(len(p.idle)))
		}
		p.idle = p.idle[:0]
	case Spin:
		c.wakeCalls.Add(1)
		p.stopListenerLocked()
		return len(p.workers)
	}
	return 0
}
