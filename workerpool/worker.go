package workerpool

import (
	"runtime"
	"runtime/debug"
)

// MaxGrab is the most jobs a worker takes from the queue under one lock
// acquisition (see grabSize for how many it takes below that). Jobs a
// worker has taken are no longer queued; on an ungated pool the ones it
// has not started can still be stolen by an idle worker or removed by
// Discard, on a gated one they run on that worker.
const MaxGrab = 64

// grabSize is how many of q queued jobs a worker takes at once: half of the
// queue shared out among all the workers — the Go runtime's runqgrab takes
// half of a run queue for one thief, but a pool's workers all draw from one
// queue — at least one job and at most MaxGrab. Shares shrink as the queue
// drains, so the last jobs of a round spread over the workers: of a 65-job
// round on 8 workers the first grab takes 4 and the last 30 go one by one.
func grabSize(q, workers int) int { return min(max(1, q/(2*workers)), MaxGrab) }

// Dispatch. The queue is a list of fixed-size blocks reused across rounds,
// so enqueuing and taking jobs do not allocate. Every job gets a sequence
// number in queue order: pushed counts jobs accepted, popped counts jobs
// taken. Enqueue takes the lock, pushes, applies the wake policy once and
// unlocks (except on an ungated Targeted pool: see Enqueue); EnqueueBatch
// does the same for n jobs: one lock acquisition, one wake decision. A
// worker holds the lock while it looks for work; if the gate is open it
// takes a grab — the oldest min(max(1, q/(2·workers)), MaxGrab) of the q
// queued jobs — releases the lock, runs the grab's jobs in order, and
// re-takes the lock once to retire the grab and take the next one. So a
// worker pays one lock acquisition per grab, not per job, when the queue
// is long, while the shares shrink as the queue drains and the last jobs
// of a round still spread over every worker (Go's runqgrab takes half of a
// run queue for one thief; here all workers share one queue, hence the
// division by the worker count). Job panics are recovered and kept for
// Join. On an ungated pool a worker that finds no queued job steals the
// newer half of the unstarted jobs of another worker's grab (steal.go), so
// idle workers take over the jobs behind a slow one; a gated pool, the
// SGen round, never steals and keeps its counters as they were. What the
// owner pays per job to stay stealable is at steal.go, and its measured
// cost in docs/workerpool.md.

// serve is a worker's loop. It holds the queue lock except while running a
// grab or waiting, takes grabs in FIFO order while the gate is open, and
// exits once the pool is closed and the queue is empty. If resumed, this
// goroutine replaces one that a job ended with runtime.Goexit: it runs the
// rest of that job's grab and retires it, keeping goexit, the Goexit's
// error, for Join — unless goexit is nil (a group's job: its group has it).
func (p *Pool) serve(w *worker, resumed bool, goexit *PanicError) {
	defer p.wg.Done()
	w.goid.Store(goid())
	if resumed {
		if goexit != nil {
			w.panics = append(w.panics, goexit)
		}
		p.runGrab(w)
		p.publishGrab(w)
	}
	if p.shards != nil {
		p.serveSharded(w)
		return
	}
	c := &w.c
	p.lock(c)
	for {
		if len(w.held) > 0 {
			p.retireGrabLocked(w)
		}
		if p.takeLocked(w) || p.stealLocked(w) {
			p.runTakenLocked(w)
			continue
		}
		if p.closed.Load() { // closed implies the gate is open: the queue is empty
			if p.in == nil || p.in.drained() {
				break
			}
			// A push reserved before Close is still being written.
			p.unlock(c)
			runtime.Gosched()
			p.lock(c)
			continue
		}
		if !p.listenLocked(w) {
			p.waitLocked(w)
		}
	}
	p.unlock(c)
}

// takeLocked moves the oldest grabSize queued jobs into w's grab, if the
// gate lets w work, and reports whether it took any. w's state names the
// oldest of them as running, so Join waits for the whole grab.
func (p *Pool) takeLocked(w *worker) bool {
	q := p.queuedLocked()
	if !p.gateOpen.Load() || q == 0 {
		return false
	}
	w.held = w.buf[:grabSize(q, len(p.workers))]
	if p.q.len() > 0 { // the blocks hold the oldest jobs
		w.held = w.held[:min(len(w.held), p.q.len())]
		p.q.popInto(w.held)
	} else if w.held = w.held[:p.in.takeInto(w.held)]; len(w.held) == 0 {
		return false // the oldest position is still being written
	}
	w.next = 0
	popped := p.popped.Load()
	w.state.Store(popped + 1) // running, before popped moves: see doneUpTo
	p.popped.Store(popped + uint64(len(w.held)))
	if p.steal {
		w.startClaims(len(w.held))
	}
	w.c.grabs.Add(1)
	return true
}

// runTakenLocked runs the grab w just took: it makes Targeted's chained
// wake, releases the lock while the grab runs, and takes it back.
func (p *Pool) runTakenLocked(w *worker) {
	c := &w.c
	next := -1
	if p.opts.Wake == Targeted {
		next = p.nextTargetLocked(c)
	}
	p.unlock(c)
	if next >= 0 {
		c.addFutex(p.workers[next].park.unpark())
	}
	p.runGrab(w)
	p.publishGrab(w)
	p.lock(c)
}

// runGrab runs the jobs of w's grab that have not started, in order.
func (p *Pool) runGrab(w *worker) {
	for w.next < len(w.held) {
		p.runJobs(w)
	}
}

// publishGrab counts w's finished grab as run and, if none of its jobs
// panicked, marks it done at once (state 0), before the worker re-takes the
// lock, so that a Join polling for these jobs sees them done a lock
// acquisition earlier. A grab with panics stays running until
// retireGrabLocked has kept them, so that a Join that sees the jobs done
// also sees their panics. Outside listen, only w writes its state.
func (p *Pool) publishGrab(w *worker) {
	p.countGrabRun(w)
	if len(w.panics) == 0 {
		clear(w.held) // the finished jobs are not kept alive
		w.state.Store(0)
	}
}

// countGrabRun counts w's finished grab: its jobs as run, but those a
// cancelled group skipped as dropped.
func (p *Pool) countGrabRun(w *worker) {
	if k := w.skipped; k > 0 {
		w.skipped = 0
		p.dropped.Add(uint64(k))
		w.c.jobs.Add(uint64(len(w.held) - k))
		return
	}
	w.c.jobs.Add(uint64(len(w.held)))
}

// retireGrabLocked completes publishGrab under the lock: the grab's panics
// are kept for Join, and Joins sleeping until its jobs are done are woken.
func (p *Pool) retireGrabLocked(w *worker) {
	for i, pe := range w.panics {
		p.keepPanicLocked(pe)
		w.panics[i] = nil
	}
	w.panics = w.panics[:0]
	clear(w.held)
	w.held = w.buf[:0]
	w.state.Store(0)
	if p.spinner == w.id { // its listen was ended by runtime.Goexit
		p.spinner = -1
	}
	p.wakeDoneJoinsLocked(&w.c)
}

func (p *Pool) keepPanicLocked(pe *PanicError) {
	if len(p.panics) < maxKeptPanics {
		p.panics = append(p.panics, pe)
	} else {
		p.lostPanics++
	}
	p.npanics.Add(1)
}

// runJobs runs w's grab from w.next on, in order, until it is done or a
// job panics; the panic is recovered into a *PanicError kept in w.panics,
// and runGrab calls again for the jobs after it. One deferred recover
// serves the whole grab, not one per job (runJobsRecovering's). next moves
// past a job before it runs, so that the goroutine replacing a worker
// ended by runtime.Goexit goes on with the job after it: a job that calls
// runtime.Goexit ends this goroutine (and, for Threads, its thread), and
// the worker is replaced by a new goroutine so that the pool keeps its
// size, the job is still accounted for and the rest of its grab still
// runs.
func (p *Pool) runJobs(w *worker) {
	exited := true // until runJobsRecovering returns, which a Goexit never lets it do
	defer func() {
		if !exited {
			return
		}
		if tid := int(w.tid.Load()); tid != 0 { // this thread ends with this goroutine; Close waits for it too
			p.lock(&w.c)
			p.retiredThreads = append(p.retiredThreads, tid)
			p.unlock(&w.c)
		}
		w.c.panicked.Add(1)
		p.wg.Add(1) // before this goroutine's own Done, so Close keeps waiting
		var goexit *PanicError
		if w.goexitReported {
			w.goexitReported = false // a group's job: its group has the error, Join must not get it too
		} else {
			goexit = &PanicError{Worker: w.id, Value: ErrJobGoexit, Stack: debug.Stack()}
		}
		p.kit.startWorker(func() { p.serve(w, true, goexit) }, &w.tid)
	}()
	if pe := p.runJobsRecovering(w); pe != nil {
		w.panics = append(w.panics, pe)
		w.c.panicked.Add(1)
	}
	exited = false
}

// runJobsRecovering runs the jobs under the grab's one deferred recover. A
// panic stops there, whatever its value — nil too, which recover returns
// for panic(nil) under GODEBUG=panicnil=1 — and the function returns; a
// Goexit runs the same deferred call but goes on unwinding, so that only
// runJobs, after it, can tell the two apart.
func (p *Pool) runJobsRecovering(w *worker) (panicked *PanicError) {
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover()
		if p.obs != nil {
			p.obs.JobEnd(w.id)
		}
		if p.room != nil {
			p.room.release(1) // the job that panicked or called Goexit is finished
		}
		panicked = &PanicError{Worker: w.id, Value: r, Stack: debug.Stack()} // dropped by a Goexit's unwinding
	}()
	obs := p.obs
	for w.next < len(w.held) {
		i := w.next
		if p.steal && i >= int(w.limit) && !w.claimFrom(i) { // claimed in runs: steal.go
			w.truncateGrab(i) // a thief or Discard took the rest
			break
		}
		j := w.held[i]
		w.next = i + 1
		if obs != nil {
			obs.JobStart(w.id)
		}
		j.Run(w.id)
		if obs != nil {
			obs.JobEnd(w.id)
		}
		if p.room != nil {
			p.room.release(1)
		}
	}
	returned = true
	return nil
}

// waitLocked parks w as the wake policy prescribes and returns with the
// lock held again, counting the wake-up and whether it was futile.
func (p *Pool) waitLocked(w *worker) {
	if p.in != nil && !p.sleepLocked() {
		return // a job was published since takeLocked looked
	}
	c := &w.c
	p.parked++
	procs := p.refreshProcs()
	switch p.opts.Wake {
	case Broadcast, Signal:
		p.countWait(c, procs, p.work.wait())
		c.locks.Add(1)
	case Targeted:
		p.idle = append(p.idle, w.id)
		p.unlock(c)
		p.countWait(c, procs, w.park.park())
		p.lock(c)
		p.waking.Add(-1)
	case Spin:
		p.unlock(c)
		p.spinWait(w)
		p.lock(c)
		p.retireUnit()
	}
	p.parked--
	c.woken.Add(1)
	if p.obs != nil {
		p.obs.Woken(w.id)
	}
	if !p.hasWorkLocked() && !p.closed.Load() {
		c.futile.Add(1)
		if p.obs != nil {
			p.obs.FutileWake(w.id)
		}
	}
}

// spinWait takes one unit of the Spin semaphore, spinning first if the
// spinner budget allows and w did not just listen in vain (a worker that
// spun for nothing sleeps, freeing its P and its slot, and the worker woken
// next listens in its place), and counts how it got the unit.
func (p *Pool) spinWait(w *worker) {
	c := &w.c
	procs := int(p.procs.Load())
	calls, blocked := p.sema.wait(!w.spunOut)
	w.spunOut = false
	c.addFutex(calls)
	if blocked {
		p.countHandoffSleep(c, procs, calls)
	} else {
		c.spinWakes.Add(1)
	}
}
