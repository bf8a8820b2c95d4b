package workerpool

import (
	"runtime"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
)

// ingress is the lock-free front of an ungated Targeted pool's shared
// queue: Enqueue reserves a position in it with one CAS and publishes its
// job there without taking the queue lock; the holder of the queue lock is
// its one consumer. With one fast submitter the queue lock was the
// bottleneck: every enqueue took it, and workers coming back for their next
// grab queued behind it.
//
// It follows Dmitry Vyukov's bounded MPMC queue (1024cores.net, "Bounded
// MPMC queue"), with one consumer. A producer reads tail, checks that the
// position's cell is free — tail − head < len(cells): the consumer has
// taken the job that used it before — and claims the position with a CAS
// of tail from pos to pos+1; the job is accepted then. It writes the job
// and publishes it by storing pos+1 in the cell's sequence number. The
// consumer takes jobs from head on while their cells say published, clears
// them, and stores head once per take. Unlike Vyukov's queue, the consumer
// does not write the sequence numbers back: head tells producers which
// cells are free, so a take writes to no line but the cells it empties and
// head, and the producer's next writes find fewer lines to pull back.
//
// Invariants, on top of the package's:
//
//   - One order. Jobs leave the ingress only in position order: a worker's
//     grab straight from the cells when the queue's blocks are empty, or
//     moveTo, which appends them to the blocks. EnqueueBatch, which pushes directly, first
//     counts its jobs in pushed and then moves every position reserved so
//     far (waiting for any not yet published). So whenever an Enqueue or
//     EnqueueBatch returned before a Join read its target (pushed +
//     reserved positions), all its jobs are queued ahead of every job
//     counted after that read, and the blocks' jobs are older than the
//     cells': Join's sequence-number rule (popped ≥ target) stays exact.
//   - Bounded, not blocking. When the cells are full, the producer takes the
//     queue lock, moves what is published to the blocks (which grow) and
//     tries again; it yields if the oldest position is still being written.
//   - Close sets closedBit in tail under the queue lock; a CAS against a
//     tail with the bit fails, so no job is accepted after Close, and a
//     worker leaves a closed pool only once every reserved position has
//     been published and taken (drained).
//   - No lost wake-up: a producer publishes, then loads sleepers; a Targeted
//     worker about to park counts itself in sleepers, then loads the oldest
//     cell's sequence number. Both are sequentially consistent, so at least
//     one sees the other: the worker does not park, or the producer takes
//     the lock and applies the wake rule.
type ingress struct {
	tail  atomic.Uint64 // next position to reserve, | closedBit after Close
	_     [cacheLine - 8]byte
	head  atomic.Uint64 // next position to take; written under the queue lock
	_     [cacheLine - 8]byte
	cells []cell // a power of two of them
}

// cell holds the job of position seq-1 once seq is stored.
type cell struct {
	seq atomic.Uint64
	job jobs.Job
}

// closedBit in tail refuses every later reservation.
const closedBit = 1 << 63

// ingressCells is the size of a pool's ingress: 24 KiB, enough that a
// submitter rarely finds it full while workers keep up.
const ingressCells = 1024

func newIngress(cells int) *ingress { return &ingress{cells: make([]cell, cells)} }

// pushResult is the outcome of tryPush.
type pushResult int

const (
	pushOK pushResult = iota
	pushFull
	pushClosed
)

// tryPush reserves the next position for j and publishes j there, unless
// the cells are full or the pool is closed.
func (g *ingress) tryPush(j jobs.Job) pushResult {
	size := uint64(len(g.cells))
	for {
		pos := g.tail.Load()
		if pos&closedBit != 0 {
			return pushClosed
		}
		head := g.head.Load()
		if head > pos { // pos went stale between the loads: others reserved it, a worker took it
			continue
		}
		if pos-head >= size { // the cell still holds pos-size's job
			return pushFull
		}
		if g.tail.CompareAndSwap(pos, pos+1) {
			c := &g.cells[pos&(size-1)]
			c.job = j
			c.seq.Store(pos + 1)
			return pushOK
		}
	}
}

// reserved returns how many positions were ever reserved: jobs accepted
// through the ingress, published or not. A nil ingress has none.
func (g *ingress) reserved() uint64 {
	if g == nil {
		return 0
	}
	return g.tail.Load() &^ closedBit
}

// ready reports whether the oldest untaken position holds a published job.
// The queue lock must be held.
func (g *ingress) ready() bool {
	h := g.head.Load()
	return g.cells[h&uint64(len(g.cells)-1)].seq.Load() == h+1
}

// drained reports whether every reserved position has been taken. The
// queue lock must be held.
func (g *ingress) drained() bool { return g.reserved() == g.head.Load() }

// takeInto moves up to len(dst) published jobs, oldest first, into dst and
// returns how many, stopping at the first position still being written.
// The consumer only reads the cells and stores head once: the cache lines
// the producer writes next are not pulled back to the consumer's CPU. The
// queue lock must be held.
func (g *ingress) takeInto(dst []jobs.Job) int {
	mask := uint64(len(g.cells) - 1)
	h := g.head.Load()
	n := 0
	for n < len(dst) {
		c := &g.cells[(h+uint64(n))&mask]
		if c.seq.Load() != h+uint64(n)+1 {
			break
		}
		dst[n] = c.job
		c.job = nil
		n++
	}
	g.head.Store(h + uint64(n))
	return n
}

// moveTo moves the published jobs, oldest first, to the back of r, up to
// the first position still being written, and returns how many it moved.
// The queue lock must be held.
func (g *ingress) moveTo(r *fifo) int {
	var buf [64]jobs.Job
	moved := 0
	for {
		n := g.takeInto(buf[:])
		r.pushAll(buf[:n])
		moved += n
		if n < len(buf) {
			return moved
		}
	}
}

// queued returns how many reserved positions have not been taken,
// published or not. The queue lock must be held.
func (g *ingress) queued() int { return int(g.reserved() - g.head.Load()) }

// moveAll moves every job reserved so far to r, waiting for positions still
// being written: their producers publish without the lock, a few
// instructions after their CAS, unless the scheduler preempted them there.
// The queue lock must be held.
func (g *ingress) moveAll(r *fifo) {
	for end := g.reserved(); g.head.Load() < end; {
		if g.moveTo(r) == 0 {
			runtime.Gosched()
		}
	}
}

// close refuses every later reservation. The queue lock must be held.
func (g *ingress) close() { g.tail.Or(closedBit) }

// pushIngress is Enqueue on a pool with an ingress: publish j without the
// lock, then, if a worker is parked and none is already on its way, take
// the lock once to apply the Targeted rule (the worker that is woken wakes
// the next one while jobs remain, as after a locked enqueue).
func (p *Pool) pushIngress(j jobs.Job) error {
	for {
		switch p.in.tryPush(j) {
		case pushClosed:
			return ErrClosed
		case pushFull:
			p.lock(&p.enq)
			moved := p.in.moveTo(&p.q)
			p.unlock(&p.coord)
			if moved == 0 { // the oldest position is still being written
				runtime.Gosched()
			}
			continue
		}
		break
	}
	if p.sleepers.Load() > 0 && p.waking.Load() == 0 {
		p.lock(&p.enq)
		d := deferredWake{unpark: p.nextTargetLocked(&p.enq)}
		p.unlock(&p.coord)
		p.wakeAfterUnlock(d, &p.coord)
	}
	if p.obs != nil {
		p.obs.Enqueued(1)
	}
	return nil
}

// sleepLocked tells lock-free enqueuers that w is about to park, unless the
// ingress already holds a published job for it; it reports whether w may
// park. The queue lock must be held.
func (p *Pool) sleepLocked() bool {
	p.sleepers.Add(1)
	if p.in.ready() {
		p.sleepers.Add(-1)
		return false
	}
	return true
}
