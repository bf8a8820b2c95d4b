package workerpool

import "time"

// Direct handoff (Spin policy). An idle worker that may spin registers as
// the pool's spinner (Pool.spinner) and listens on its own state word
// instead of taking the lock; an enqueuer that finds it listening copies a
// grab of the oldest queued jobs into the worker's buffer under the lock
// and hands it over with one CAS on that word, which also publishes the
// grab as running. The worker runs it and, with one more CAS, marks it done
// and listens again. A round trip to a spinning worker thus moves a single
// cache line — the worker's handoff line: state and the first jobs of the
// grab — each way, where taking the lock, the queue and the semaphore's
// word each moved their own (the Go runtime hands a readied goroutine to
// the next scheduling round through runnext, without the run queue, for
// the same reason).
//
// A worker's state is running | count<<countShift | mail<<mailShift, where
// running is 1 + the sequence number of the oldest job of its grab (0 if
// none) and count the size of a handed grab. The mail states:
//
//	mailOff        not listening: enqueuers queue and release units as usual
//	mailListening  registered and polling, no grab: an enqueuer may hand one
//	mailHanded     a grab is handed; the worker runs it, then CASes the state
//	               back to mailListening with running 0
//	mailPending    an enqueuer queued jobs while the worker had a handed
//	               grab, or Close came: the worker runs the grab, if any,
//	               stops listening and looks under the lock
//
// Enqueuers and Close move the state only under the lock, and only out of
// mailListening or mailHanded; the worker moves it out of mailListening
// only by a CAS to mailOff, which fails if an enqueuer got there first. A
// handed grab is taken under the lock like any other (popped, sequence
// numbers, FIFO), so the queue's invariants hold unchanged.
const (
	mailOff uint64 = iota
	mailListening
	mailHanded
	mailPending

	// running takes the low 52 bits (4.5e15 jobs) in both layouts; above
	// it, a shared queue keeps a handed grab's size (7 bits) and the mail
	// (2 bits), a sharded one the grab's shard (12 bits, see shardShift).
	countShift  = 52
	mailShift   = 59
	runningMask = 1<<countShift - 1
	countMask   = (1<<(mailShift-countShift) - 1) << countShift
)

func mailOf(st uint64) uint64      { return st >> mailShift }
func countOf(st uint64) int        { return int(st&countMask) >> countShift }
func withMail(st, m uint64) uint64 { return st&^(3<<mailShift) | m<<mailShift }

// listenLocked makes w the spinner if the policy is Spin, nobody else
// listens, the gate is open, w did not just listen in vain (then it sleeps
// on the semaphore without spinning, and listens again once woken) and the
// spinner budget has a slot. It returns false, having done nothing, if not;
// otherwise it listens without the lock until w must look under the lock
// again, and returns true with the lock held.
func (p *Pool) listenLocked(w *worker) bool {
	if p.opts.Wake != Spin || p.shards != nil || p.spinner >= 0 || !p.gateOpen.Load() || w.spunOut {
		return false
	}
	if !p.spin.take() {
		return false
	}
	p.spinner = w.id
	w.state.Store(mailListening << mailShift)
	p.unlock(&w.c)
	p.listenWithSlot(w)
	p.lock(&w.c)
	if p.spinner == w.id {
		p.spinner = -1
	}
	p.wakeDoneJoinsLocked(&w.c) // for Joins that slept while w retired grabs alone
	return true
}

// listenWithSlot listens and gives the spinner slot back however listen
// ends: a job of a handed grab may end the goroutine with runtime.Goexit.
func (p *Pool) listenWithSlot(w *worker) {
	defer p.spin.give()
	p.listen(w)
}

// listen polls w's state, running every grab handed to it, until a
// timeout (spinFor without a handoff), a pending look, a grab that must be
// retired under the lock (panics), or a Join asleep ends it. When it
// returns, w's mail is mailOff.
func (p *Pool) listen(w *worker) {
	var start time.Time
	for i := 1; ; i++ {
		st := w.state.Load()
		switch mailOf(st) {
		case mailHanded:
			if !p.runHanded(w, st) {
				return
			}
			start = time.Time{} // a new listening period
		case mailListening:
			if i%64 == 0 {
				if spunFor(&start) > spinFor && w.state.CompareAndSwap(st, mailOff) {
					w.spunOut = true
					return
				}
				p.kit.pause(true) // let goroutines waiting for this P run
			}
			procyield(pauseCycles)
		default: // mailPending: run a grab handed before it, then look
			if countOf(st) == 0 || p.runHandedGrab(w, st) {
				w.state.Store(0)
			}
			return
		}
	}
}

// runHanded runs the grab handed to w in state st and reports whether w
// may go on listening. With no panics it marks the grab done and listens
// again in one CAS; that fails if the state went pending meanwhile, and
// then w stops listening. A grab with panics stays running for the lock
// (retireGrabLocked keeps them before Join can see the jobs done).
func (p *Pool) runHanded(w *worker, st uint64) bool {
	if !p.runHandedGrab(w, st) {
		return false
	}
	if !w.state.CompareAndSwap(st, mailListening<<mailShift) {
		w.state.Store(0) // mailPending
		return false
	}
	// Join registers in joinWaiters before its last look at running; w
	// cleared running before this load. So a Join that saw the grab
	// running is seen here, and w stops to wake it under the lock.
	// Close stores closed before it moves the mail: if it found the grab
	// handed and marked it pending, the CAS above failed; otherwise closed
	// is visible now.
	if p.joinWaiters.Load() > 0 || p.closed.Load() {
		return !p.stopListening(w)
	}
	return true
}

// runHandedGrab counts the wake-up a handoff is, runs the grab handed in
// state st and reports whether it may be marked done now. If a job
// panicked it leaves the grab running, with mail off, for
// retireGrabLocked.
func (p *Pool) runHandedGrab(w *worker, st uint64) bool {
	w.c.woken.Add(1)
	w.c.spinWakes.Add(1)
	if p.obs != nil {
		p.obs.Woken(w.id)
	}
	w.held, w.next = w.buf[:countOf(st)], 0
	w.ownGrab() // the enqueuer published the claims (steal.go)
	p.runGrab(w)
	p.countGrabRun(w)
	if len(w.panics) > 0 {
		w.state.Store(st & runningMask)
		return false
	}
	clear(w.held)
	w.held = w.buf[:0]
	return true
}

// stopListening moves w from listening to mailOff and reports whether it
// did; it fails when an enqueuer handed w a grab first, which w must run.
func (p *Pool) stopListening(w *worker) bool {
	return w.state.CompareAndSwap(mailListening<<mailShift, 0)
}

// handOffLocked hands a grab of the queued jobs to the listening spinner,
// if there is one, and reports whether it did. The jobs are copied into the
// spinner's buffer first and leave the queue only once the CAS that hands
// them over has succeeded, so a spinner that stopped listening meanwhile
// costs nothing. A spinner busy with a handed grab is told to look at the
// queue when it is done, since it is not listening for the jobs just
// queued.
func (p *Pool) handOffLocked(c *counters) bool {
	if p.spinner < 0 || !p.gateOpen.Load() || p.q.len() == 0 {
		return false
	}
	w := &p.workers[p.spinner]
	for {
		st := w.state.Load()
		switch mailOf(st) {
		case mailListening:
			k := grabSize(p.q.len(), len(p.workers))
			p.q.peekInto(w.buf[:k])
			if p.steal { // before the CAS: w may claim at once (steal.go)
				w.publishClaims(k)
			}
			popped := p.popped.Load()
			handed := popped + 1 | uint64(k)<<countShift | mailHanded<<mailShift
			if w.state.CompareAndSwap(st, handed) { // running, before popped moves
				p.q.drop(k)
				p.popped.Store(popped + uint64(k))
				c.grabs.Add(1)
				c.handoffs.Add(1)
				return true
			}
			if p.steal {
				w.withdrawClaims()
			}
			clear(w.buf[:k])
		case mailHanded:
			if w.state.CompareAndSwap(st, withMail(st, mailPending)) {
				return false
			}
		default: // mailOff or mailPending: it will look under the lock
			return false
		}
	}
}

// stopListenerLocked makes the spinner, if any, stop listening and look
// under the lock (Close).
func (p *Pool) stopListenerLocked() {
	if p.spinner < 0 {
		return
	}
	w := &p.workers[p.spinner]
	for {
		st := w.state.Load()
		if m := mailOf(st); m != mailListening && m != mailHanded {
			return
		}
		if w.state.CompareAndSwap(st, withMail(st, mailPending)) {
			return
		}
	}
}
