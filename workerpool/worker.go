package workerpool

import (
	"errors"
	"runtime/debug"

	"github.com/gcbench/gcbench/jobs"
)

// serve is a worker's loop. It holds the queue lock except while running a
// job or waiting, takes jobs in FIFO order while the gate is open, and exits
// once the pool is closed and the queue is empty. resume, if non-nil, is the
// outcome of a job whose previous worker goroutine was ended by
// runtime.Goexit: this goroutine replaces it and first finishes that job's
// bookkeeping.
func (p *Pool) serve(w *worker, resume *PanicError) {
	defer p.wg.Done()
	c := &w.c
	p.lock(c)
	if resume != nil {
		p.finishJobLocked(w, resume)
	}
	for {
		if p.gateOpen && p.q.len() > 0 {
			j := p.q.pop()
			p.popped++
			w.running = p.popped
			next := -1
			if p.opts.Wake == Targeted {
				next = p.nextTargetLocked(c) // chained wake
			}
			p.unlock(c)
			if next >= 0 {
				c.addFutex(p.workers[next].park.unpark())
			}
			pe := p.runJob(w, j)
			p.lock(c)
			p.finishJobLocked(w, pe)
			continue
		}
		if p.closed { // closed implies the gate is open: the queue is empty
			break
		}
		p.waitLocked(w)
	}
	p.unlock(c)
}

func (p *Pool) finishJobLocked(w *worker, pe *PanicError) {
	w.running = 0
	w.c.jobs.Add(1)
	if pe != nil {
		if len(p.panics) < maxKeptPanics {
			p.panics = append(p.panics, pe)
		} else {
			p.lostPanics++
		}
	}
	p.wakeDoneJoinsLocked(&w.c)
}

// wakeDoneJoinsLocked wakes the sleeping Joins once the least of their
// targets is reached.
func (p *Pool) wakeDoneJoinsLocked(c *counters) {
	if p.joinWaiters > 0 && p.joinTarget != ^uint64(0) && p.doneUpToLocked(p.joinTarget) {
		p.joinTarget = ^uint64(0) // sleeping Joins re-register when they recheck
		c.addFutex(p.done.wake(wakeAll))
	}
}

// errGoexit is the value of the PanicError reported for a job that called
// runtime.Goexit.
var errGoexit = errors.New("job called runtime.Goexit")

// runJob runs j, recovering a panic into a *PanicError. A job that calls
// runtime.Goexit ends this goroutine (and, for Threads, its thread); the
// worker is then replaced by a new goroutine so that the pool keeps its size
// and the job is still accounted for.
func (p *Pool) runJob(w *worker, j jobs.Job) (pe *PanicError) {
	if p.obs != nil {
		p.obs.JobStart(w.id)
	}
	returned := false
	defer func() {
		r := recover()
		if r != nil {
			pe = &PanicError{Worker: w.id, Value: r, Stack: debug.Stack()}
		}
		if p.obs != nil {
			p.obs.JobEnd(w.id)
		}
		if r == nil && !returned {
			if w.tid != 0 { // this thread ends with this goroutine; Close waits for it too
				p.lock(&w.c)
				p.retiredThreads = append(p.retiredThreads, w.tid)
				p.unlock(&w.c)
			}
			p.wg.Add(1)
			goexit := &PanicError{Worker: w.id, Value: errGoexit, Stack: debug.Stack()}
			p.kit.startWorker(func() { p.serve(w, goexit) }, &w.tid)
		}
	}()
	j.Run(w.id)
	returned = true
	return nil
}

// waitLocked parks w as the wake policy prescribes and returns with the
// lock held again, counting the wake-up and whether it was futile.
func (p *Pool) waitLocked(w *worker) {
	c := &w.c
	p.parked++
	switch p.opts.Wake {
	case Broadcast, Signal:
		c.addFutex(p.work.wait())
		c.locks.Add(1)
	case Targeted:
		p.idle = append(p.idle, w.id)
		p.unlock(c)
		c.addFutex(w.park.park())
		p.lock(c)
		p.waking--
	case Spin:
		p.unlock(c)
		c.addFutex(p.sema.wait())
		p.lock(c)
		if p.outstanding > 0 {
			p.outstanding--
		}
	}
	p.parked--
	c.woken.Add(1)
	if p.obs != nil {
		p.obs.Woken(w.id)
	}
	if !(p.gateOpen && p.q.len() > 0) && !p.closed {
		c.futile.Add(1)
		if p.obs != nil {
			p.obs.FutileWake(w.id)
		}
	}
}
