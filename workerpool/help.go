package workerpool

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// Helping waits. A job that waits for a group or Map of its own pool holds
// its worker; on a pool of one worker, or with every worker doing the same,
// nothing would be left to run what it waits for. So a wait that runs on
// a worker of the group's pool runs queued jobs of that pool, one at a
// time, until it is over — as a Java ForkJoinPool worker that joins runs
// queued tasks meanwhile. Jobs that block on anything else (a channel, a
// lock, I/O) still hold their worker: the package doc says so.
//
// Whose wait it is. Go has no goroutine identity, and a job may hand its
// group to another goroutine to wait on; a worker's index must never run
// two jobs at once (jobs index per-worker state by it). So each worker
// goroutine records its goroutine id when it starts (serve), and a wait
// about to block reads its own from runtime.Stack's first line and helps
// only if it is a worker's. That costs about a microsecond, once per
// blocking wait, never on the job path.
//
// Invariants, on top of the pool's:
//
//  1. Join stays exact. On the shared queue a helper takes one job at a
//     time under the queue lock, so the job's sequence number is newer
//     than the oldest of the helper's grab, which stays published as
//     running until the helped job has returned (it runs inside a job of
//     that grab): a Join that waits for the helped job waits for the grab.
//     On a sharded pool the job may come from any shard, so the helper
//     publishes it as running in a frame pushed on its helps list (shard
//     and sequence number, as a grab in state) before the shard's popped
//     moves past it, and clears and pops the frame after the job ran and
//     its panic was kept; shardsDoneUpTo reads the list as it reads state.
//     A frame's next never changes once the frame is pushed.
//  2. Exactly once: the job is popped under that lock, as a grab is.
//  3. Counters and the bound: a helped job counts as a grab of one job,
//     run (or skipped, when its group was cancelled) by the helper, and
//     frees its place under Options.MaxQueued when it returns; its panic is
//     kept for Join as a grab's is.
//  4. No lost wake-up: a helper that finds nothing to run sleeps on its
//     group, at most helpPollMax at a time, and looks again: jobs queued
//     meanwhile by the group's other jobs are found without a wake from
//     the enqueue path, which stays as it was.

// helpPollMin and helpPollMax bound how long a helper with nothing to run
// sleeps before it looks at the queue again; the sleep doubles from the
// first to the second while nothing comes.
const (
	helpPollMin = 20 * time.Microsecond
	helpPollMax = 2 * time.Millisecond
)

// goid returns the current goroutine's id, from the first line of its
// stack trace ("goroutine 42 [running]:").
func goid() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	const prefix = len("goroutine ")
	var id int64
	for _, c := range buf[min(prefix, n):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

// currentWorker returns the worker of p whose goroutine calls it, or nil.
func (p *Pool) currentWorker() *worker {
	if !p.initialized() || p.nat != nil {
		return nil
	}
	id := goid()
	for i := range p.workers {
		if w := &p.workers[i]; w.goid.Load() == id {
			return w
		}
	}
	return nil
}

// helpFrame is a job a worker runs while its own job waits, on a sharded
// pool: state is running as a worker's state is, next the frame of the
// job it runs inside of, if that was helped too.
type helpFrame struct {
	state atomic.Uint64
	next  *helpFrame
}

// helpOne runs one queued job of p on w, whose current job waits, and
// reports whether it found one.
func (p *Pool) helpOne(w *worker) bool {
	j, ok := p.takeOne(w)
	if !ok {
		return false
	}
	if p.shards != nil {
		defer w.unpublishHelp()
	}
	skipped := w.skipped // the outer grab's, counted when it is published
	w.skipped = 0
	pe := p.runHelped(w, j)
	if w.skipped > 0 {
		p.dropped.Add(1)
	} else {
		w.c.jobs.Add(1)
	}
	w.skipped = skipped
	w.c.grabs.Add(1)
	if pe != nil {
		w.c.panicked.Add(1)
		p.lock(&w.c)
		p.keepPanicLocked(pe)
		p.unlock(&w.c)
	}
	return true
}

// takeOne pops the oldest queued job for a helper (invariant 1).
func (p *Pool) takeOne(w *worker) (jobs.Job, bool) {
	var one [1]jobs.Job
	c := &w.c
	if p.shards != nil {
		first := int(w.state.Load() >> shardShift) // the shard of w's own grab first
		for i := range p.shards {
			if j, ok := p.takeOneSharded(w, (first+i)%len(p.shards)); ok {
				return j, true
			}
		}
		return nil, false
	}
	p.lock(c)
	defer p.unlock(c)
	if !p.gateOpen.Load() {
		return nil, false
	}
	if p.q.len() > 0 {
		p.q.popInto(one[:])
	} else if p.in == nil || p.in.takeInto(one[:]) == 0 {
		return nil, false
	}
	p.popped.Add(1)
	return one[0], true
}

// takeOneSharded pops the oldest job of shard v for a helper and
// publishes it as running (invariant 1).
func (p *Pool) takeOneSharded(w *worker, v int) (jobs.Job, bool) {
	s := &p.shards[v]
	if s.queued() == 0 {
		return nil, false
	}
	c := &w.c
	s.lock(c)
	defer s.unlock(c)
	if s.q.len() == 0 || !p.gateOpen.Load() {
		return nil, false
	}
	var one [1]jobs.Job
	s.q.popInto(one[:])
	popped := s.popped.Load()
	f := &helpFrame{next: w.helps.Load()}
	f.state.Store(uint64(v)<<shardShift | (popped + 1))
	w.helps.Store(f) // before popped moves
	s.popped.Store(popped + 1)
	return one[0], true
}

// unpublishHelp clears and pops the innermost helped job, which has run.
func (w *worker) unpublishHelp() {
	f := w.helps.Load()
	f.state.Store(0)
	w.helps.Store(f.next)
}

// runHelped runs j on w under its own recover, as runJobsRecovering runs a
// grab's jobs, and returns its panic, if any.
func (p *Pool) runHelped(w *worker, j jobs.Job) (panicked *PanicError) {
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover() // nil for a Goexit, which goes on unwinding
		p.jobEnded(w)
		panicked = &PanicError{Worker: w.id, Value: r, Stack: debug.Stack()}
	}()
	if p.obs != nil {
		p.obs.JobStart(w.id)
	}
	j.Run(w.id)
	p.jobEnded(w)
	returned = true
	return nil
}

// jobEnded tells the observer, and the bound, that a job of w ended.
func (p *Pool) jobEnded(w *worker) {
	if p.obs != nil {
		p.obs.JobEnd(w.id)
	}
	if p.room != nil {
		p.room.release(1)
	}
}

// helpTimer returns how long a helper that found nothing sleeps next,
// doubling d from helpPollMin up to helpPollMax.
func helpTimer(d time.Duration) time.Duration {
	if d == 0 {
		return helpPollMin
	}
	return min(2*d, helpPollMax)
}
