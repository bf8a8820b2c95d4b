package workerpool

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
)

// The sharded queue (Options.Queue = Sharded). Each worker owns a shard: a
// queue and its own lock. An enqueuer picks a shard at random and takes only
// that lock, so concurrent enqueuers rarely meet; a worker takes grabs from
// its own shard and, when that is empty, steals a grab from another (a
// mutex-guarded queue per worker with stealing, the simple cousin of the
// Go runtime's per-P run queues and of Chase–Lev deques). The pool lock mu
// then guards only the sleeping side: the gate, the wake policies' state,
// sleeping Joins. Enqueuers take it only when a worker sleeps (sleepers >
// 0) and must be woken, the Go runtime's wakep rule (wake an idle P only
// if one is idle).
//
// Each shard numbers its own jobs (pushed, popped), and a worker's state
// names the shard of its grab beside the grab's oldest sequence number, so
// a Join's target is one sequence number per shard and doneUpTo stays
// exact. Jobs are taken in FIFO order within a shard.
//
// Invariants, beside those of the shared queue:
//
//  1. Exactly once: a job is pushed and taken under its shard's lock.
//  2. Nothing stranded: Enqueue checks closed under the shard lock; Close
//     sets closed, then takes and releases every shard lock (after which
//     no push can be in flight), then seals the pool and wakes everyone.
//     A worker exits only when the pool is sealed and every shard empty.
//  3. No lost wake-up: a worker about to sleep counts itself in sleepers
//     under mu, then looks at every shard; an enqueuer pushes, then reads
//     sleepers. Of two such store-then-load pairs at least one sees the
//     other's store (Go's atomics are sequentially consistent), so either
//     the worker sees the job or the enqueuer takes mu and wakes it. Spin
//     reserves semaphore units without mu, as CoreCLR's pool does: a unit
//     not released because every worker already has one outstanding is
//     followed by that worker's look at the shards.
//  4. Gating: a worker checks the gate under the shard lock, after seeing
//     the job, so a job pushed after a Join closed the gate is not taken
//     before the next Start.
type shard struct {
	mu     mutex
	q      fifo
	pushed atomic.Uint64 // jobs ever pushed; written under mu
	popped atomic.Uint64 // jobs ever taken or discarded; written under mu
	_      [cacheLine - 72]byte
	c      counters // enqueuers' acquisitions of this shard's lock
}

// shardShift places a grab's shard index above its running sequence
// number in a worker's state (sharded pools have no handoff bits).
const shardShift = 52

// queued returns how many jobs s holds, read without its lock: popped
// first, so the difference never underflows.
func (s *shard) queued() uint64 {
	popped := s.popped.Load()
	return s.pushed.Load() - popped
}

func (s *shard) lock(c *counters) {
	n := s.mu.lock()
	c.locks.Add(1)
	c.addFutex(n)
}

func (s *shard) unlock(c *counters) { c.addFutex(s.mu.unlock()) }

// pushSharded queues j, or the batch js, on a random shard under that
// shard's lock alone, then wakes a worker if one sleeps.
func (p *Pool) pushSharded(j jobs.Job, js []jobs.Job) error {
	s := &p.shards[rand.IntN(len(p.shards))]
	s.lock(&s.c)
	if p.closed.Load() {
		s.unlock(&s.c)
		return ErrClosed
	}
	n := len(js)
	if j != nil {
		s.q.push(j)
		n = 1
	} else {
		s.q.pushAll(js)
	}
	s.pushed.Add(uint64(n))
	s.unlock(&s.c)
	p.wakeSharded(n)
	if p.obs != nil {
		p.obs.Enqueued(n)
	}
	return nil
}

// wakeSharded applies the wake policy to n jobs just pushed: nothing if no
// worker sleeps (or, for Targeted and Spin, while the gate is closed),
// otherwise the shared queue's decision under mu. Targeted also skips the
// lock while a worker it woke is still on its way, as the Go runtime's
// wakep starts no M while one spins: that worker, once it has taken a
// grab, chains the next wake (it decrements waking under mu before it
// looks at the shards, so it sees the jobs of an enqueuer that saw it
// waking). Spin reserves units with a CAS and needs no lock.
func (p *Pool) wakeSharded(n int) {
	switch p.opts.Wake {
	case Spin:
		if !p.gateOpen.Load() {
			return
		}
		if k := p.reserveUnits(n); k > 0 {
			p.enq.wakeCalls.Add(1)
			p.coord.addFutex(p.sema.release(k))
		}
		return
	case Targeted:
		if !p.gateOpen.Load() || p.waking.Load() > 0 {
			return // a woken worker is on its way; it chains the next wake
		}
	}
	if p.sleepers.Load() == 0 {
		return
	}
	p.lock(&p.enq)
	d := p.wakeLocked(n, &p.enq)
	p.unlock(&p.coord)
	p.wakeAfterUnlock(d, &p.coord)
}

// queuedSharded returns how many jobs all shards hold, without their locks.
func (p *Pool) queuedSharded() int {
	var n uint64
	for i := range p.shards {
		n += p.shards[i].queued()
	}
	return int(n)
}

// serveSharded is a worker's loop on a sharded pool: grab from its own
// shard, else steal; run the grab without any lock; sleep when no shard has
// work; exit when the pool is sealed and every shard is empty.
func (p *Pool) serveSharded(w *worker) {
	for {
		if len(w.held) > 0 {
			p.retireSharded(w)
		}
		if p.gateOpen.Load() && p.grabSharded(w) {
			p.chainSharded(w)
			p.runGrab(w)
			p.publishGrab(w)
			continue
		}
		if p.stealSharded(w) {
			p.runGrab(w)
			p.publishGrab(w)
			continue
		}
		if p.sealed.Load() && p.queuedSharded() == 0 {
			return
		}
		p.idleSharded(w)
	}
}

// retireSharded retires w's published grab, taking mu only if it must keep
// panics or may have finished what a sleeping Join waits for (publishGrab
// cleared running before this reads joinWaiters; see
// sleepUntilDoneLocked).
func (p *Pool) retireSharded(w *worker) {
	if len(w.panics) == 0 && p.joinWaiters.Load() == 0 {
		w.held = w.buf[:0]
		return
	}
	p.lock(&w.c)
	p.retireGrabLocked(w)
	p.unlock(&w.c)
}

// grabSharded takes a grab for w from its own shard or, if that is empty,
// steals one from another shard, visiting them from a random one on, and
// reports whether it took any.
func (p *Pool) grabSharded(w *worker) bool {
	if p.takeShard(w, w.id) {
		return true
	}
	n := len(p.shards)
	first := rand.IntN(n)
	for i := range n {
		if v := (first + i) % n; v != w.id && p.takeShard(w, v) {
			w.c.steals.Add(1)
			return true
		}
	}
	return false
}

// takeShard moves the oldest grabSize jobs of shard v into w's grab, if v
// has any and the gate is open, and reports whether it did. The gate is
// read under the shard lock, after the job is seen (invariant 4).
func (p *Pool) takeShard(w *worker, v int) bool {
	s := &p.shards[v]
	if s.queued() == 0 {
		return false
	}
	c := &w.c
	s.lock(c)
	if s.q.len() == 0 || !p.gateOpen.Load() {
		s.unlock(c)
		return false
	}
	w.held = w.buf[:grabSize(s.q.len(), len(p.workers))]
	s.q.popInto(w.held)
	w.next = 0
	popped := s.popped.Load()
	w.state.Store(uint64(v)<<shardShift | (popped + 1)) // before popped moves
	// Stealable before the jobs leave the queue (steal.go, "Who looks").
	if p.steal {
		w.startClaims(len(w.held))
	}
	s.popped.Store(popped + uint64(len(w.held)))
	s.unlock(c)
	c.grabs.Add(1)
	return true
}

// stealSharded is stealLocked for a sharded pool, under the pool lock; it
// looks only if some grab may hold unstarted jobs.
func (p *Pool) stealSharded(w *worker) bool {
	if !p.steal || !p.anyStealable() {
		return false
	}
	c := &w.c
	p.lock(c)
	ok := p.stealLocked(w)
	p.unlock(c)
	return ok
}

// chainSharded is Targeted's chained wake on a sharded pool: a worker that
// took a grab wakes one more sleeper while jobs outnumber the workers
// already on their way.
func (p *Pool) chainSharded(w *worker) {
	if p.opts.Wake != Targeted || p.sleepers.Load() == 0 || p.waking.Load() > 0 {
		return
	}
	c := &w.c
	p.lock(c)
	next := p.nextTargetLocked(c)
	p.unlock(c)
	if next >= 0 {
		c.addFutex(p.workers[next].park.unpark())
	}
}

// idleSharded waits until a shard has work w may take or the pool is
// sealed. Broadcast, Signal and Targeted sleep under mu as on a shared
// queue, counted in sleepers; Spin waits on its semaphore without mu.
func (p *Pool) idleSharded(w *worker) {
	if p.opts.Wake == Spin {
		p.spinIdleSharded(w)
		return
	}
	c := &w.c
	p.lock(c)
	p.sleepers.Add(1)
	for !p.hasWorkLocked() && !p.sealed.Load() {
		p.waitLocked(w)
	}
	p.sleepers.Add(-1)
	p.unlock(c)
}

// spinIdleSharded is idleSharded for Spin: a look at the shards, then one
// unit of the semaphore (spinning first, within the budget).
func (p *Pool) spinIdleSharded(w *worker) {
	if p.sealed.Load() || (p.gateOpen.Load() && p.queuedSharded() > 0) {
		return
	}
	c := &w.c
	p.refreshProcs() // as waitLocked does: spinWait's choices and HandoffSleeps read it
	p.spinWait(w)
	p.retireUnit()
	c.woken.Add(1)
	if p.obs != nil {
		p.obs.Woken(w.id)
	}
	if !(p.gateOpen.Load() && p.queuedSharded() > 0) && !p.closed.Load() {
		c.futile.Add(1)
		if p.obs != nil {
			p.obs.FutileWake(w.id)
		}
	}
}

// discardSharded empties every shard, counting the removed jobs as taken,
// and passes each to drop if it is not nil.
func (p *Pool) discardSharded(drop func(jobs.Job)) int {
	n := 0
	for i := range p.shards {
		s := &p.shards[i]
		s.lock(&p.coord)
		k := s.q.len()
		if drop != nil {
			s.q.each(drop)
		}
		s.q.clear()
		s.popped.Add(uint64(k))
		s.unlock(&p.coord)
		n += k
	}
	return n
}

// sealShards waits out every push that saw the pool open: Close has set
// closed, and each shard's lock is taken and released once.
func (p *Pool) sealShards() {
	for i := range p.shards {
		s := &p.shards[i]
		s.lock(&p.coord)
		s.unlock(&p.coord)
	}
}

// shardsDoneUpTo is doneUpTo for a sharded pool and a target vector.
func (p *Pool) shardsDoneUpTo(vec []uint64) bool {
	for i := range p.shards {
		if p.shards[i].popped.Load() < vec[i] {
			return false
		}
	}
	for i := range p.workers {
		w := &p.workers[i]
		st := w.state.Load()
		if r := st & runningMask; r != 0 && r-1 < vec[st>>shardShift] {
			return false
		}
		for f := w.helps.Load(); f != nil; f = f.next { // jobs w runs while its own wait (help.go)
			h := f.state.Load()
			if r := h & runningMask; r != 0 && r-1 < vec[h>>shardShift] {
				return false
			}
		}
	}
	return true
}
