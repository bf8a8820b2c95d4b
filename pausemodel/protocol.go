package pausemodel

import "time"

// The pool protocol as the simulation runs it: the collector's enqueues
// and Start, and each worker's loop of looking at the queue, running grabs
// of jobs and going back to sleep. See the package documentation for the
// rules.

func (m *machine) collect() {
	switch m.s.Protocol {
	case Batch:
		m.enqueue(len(m.s.Jobs), m.start)
	case StartBatch:
		m.startBatch()
	default:
		m.enqueueOne(0)
	}
}

// enqueueOne is SGen's per-job dispatch: lock, push, wake, unlock.
func (m *machine) enqueueOne(i int) {
	m.enqueue(1, func() {
		if i+1 < len(m.s.Jobs) {
			m.enqueueOne(i + 1)
			return
		}
		m.start()
	})
}

// enqueue pushes n jobs under one lock acquisition and applies the wake
// policy under the lock, as SGen's pool does, then calls then.
func (m *machine) enqueue(n int, then func()) {
	c := m.collector
	m.lock(c, func() {
		m.wakeUnderLock(m.callCost(n), func() { m.queued += n }, func() { m.unlock(c, then) })
	})
}

// callCost is the collector's CPU for a call on the queue that pushes n
// jobs (0: Start): Enqueue, which is a call's lock round trip and one
// push, and Push for each job after the first.
func (m *machine) callCost(n int) timeN {
	return m.c.Enqueue + timeN(max(0, n-1))*m.c.Push
}

// wakeUnderLock is the collector's burst under the lock: d of its own work
// (done is called when it ends), then the policy's wake (see sleepers and
// wakeSleepers).
func (m *machine) wakeUnderLock(d timeN, done, then func()) {
	c := m.collector
	m.cpu(c, d, func() {
		done()
		m.wakeSleepers(m.sleepers(), then)
	})
}

// sleepers takes the workers the policy wakes now off the parked list:
// Broadcast, every worker asleep in its wait; Targeted, nobody while the
// gate is closed and one worker once it is open.
func (m *machine) sleepers() []*thread {
	var ws []*thread
	switch {
	case m.s.Wake == Broadcast:
		ws, m.parked = m.parked, nil
		m.unreturned += len(ws)
	case m.gate && len(m.parked) > 0 && m.queued > 0:
		ws = m.parked[len(m.parked)-1:]
		m.parked = m.parked[:len(m.parked)-1]
		m.awake++
	}
	return ws
}

// wakeSleepers is the collector's wake call for ws, then then. With ws
// empty it costs nothing, unless a Broadcast finds workers woken before
// that have not yet returned from their wait.
func (m *machine) wakeSleepers(ws []*thread, then func()) {
	if len(ws) == 0 {
		if m.s.Wake == Broadcast && m.unreturned > 0 {
			// workerpool's condition variable counts a woken worker as a
			// waiter until it has returned from its wait: the broadcast
			// makes a futex call, which finds nobody left to wake.
			m.cpu(m.collector, m.c.WakeCall, then)
			return
		}
		then()
		return
	}
	m.wakeAll(ws)
	m.cpu(m.collector, m.wakeCost(m.collector, ws...), then)
}

// startBatch is workerpool's StartBatch: one lock acquisition to push
// every job and open the gate, the wake after the unlock, then Join.
func (m *machine) startBatch() {
	c := m.collector
	m.lock(c, func() {
		m.cpu(c, m.callCost(len(m.s.Jobs)), func() {
			m.queued, m.gate = len(m.s.Jobs), true
			ws := m.sleepers()
			m.unlock(c, func() { m.wakeSleepers(ws, m.join) })
		})
	})
}

// wakeAll wakes the workers of a wake call: the kernel wakes them one
// after another, WakePer apart, while the call runs.
func (m *machine) wakeAll(ws []*thread) {
	for i, w := range ws {
		m.after(m.c.WakeCall+timeN(i+1)*m.c.WakePer, func() { m.wakeWorker(w) })
	}
}

// start opens the gate and wakes as the policy says (Broadcast under the
// lock, Targeted after it); the collector then sleeps in Join.
func (m *machine) start() {
	c := m.collector
	m.lock(c, func() {
		if m.s.Wake == Targeted { // workerpool unparks after the unlock, as StartBatch
			m.cpu(c, m.callCost(0), func() {
				m.gate = true
				ws := m.sleepers()
				m.unlock(c, func() { m.wakeSleepers(ws, m.join) })
			})
			return
		}
		m.wakeUnderLock(m.callCost(0), func() { m.gate = true }, func() {
			m.unlock(c, m.join)
		})
	})
}

// wakeWorker wakes w from its wait; one still on its way into the kernel
// finds its wait already satisfied and goes round again when it gets
// there.
func (m *machine) wakeWorker(w *thread) {
	if w.parking {
		w.rewake = true
		return
	}
	m.wakeThread(w, func() {
		m.returned()
		w.tookSome, w.justWoke = false, true
		m.look(w)
	})
}

// returned counts a worker a broadcast woke back from its wait.
func (m *machine) returned() {
	if m.s.Wake == Broadcast {
		m.unreturned--
	}
}

// look is a worker at the queue: it takes the next grab of jobs if the
// gate is open and jobs are queued (Targeted: waking one more worker if
// more jobs wait than workers are awake), else goes back to sleep.
func (m *machine) look(w *thread) {
	m.lock(w, func() {
		m.cpu(w, m.c.Take, func() {
			justWoke := w.justWoke
			w.justWoke = false
			if !m.gate || m.queued == 0 {
				m.sleep(w, justWoke)
				return
			}
			k := grabSize(m.queued, m.s.Workers)
			grab := m.s.Jobs[m.next : m.next+k]
			m.next += k
			m.queued -= k
			if m.s.Wake == Targeted && !w.tookSome && m.awake > 0 {
				m.awake--
			}
			w.tookSome = true
			var chained *thread
			if m.s.Wake == Targeted && m.queued > m.awake && len(m.parked) > 0 {
				chained = m.parked[len(m.parked)-1]
				m.parked = m.parked[:len(m.parked)-1]
				m.awake++
			}
			m.unlock(w, func() {
				if chained == nil {
					m.runGrab(w, grab)
					return
				}
				m.wakeAll([]*thread{chained})
				m.cpu(w, m.wakeCost(w, chained), func() { m.runGrab(w, grab) })
			})
		})
	})
}

// grabSize is workerpool's: half of the queue shared out among the
// workers, at least one job and at most 64.
func grabSize(q, workers int) int { return min(max(1, q/(2*workers)), 64) }

func (m *machine) runGrab(w *thread, grab []timeN) {
	if m.firstStart < 0 {
		m.firstStart = m.now
	}
	var cost timeN
	for _, j := range grab {
		cost += j
	}
	m.cpu(w, cost, func() {
		m.done += len(grab)
		m.lastEnd = m.now
		if m.done == len(m.s.Jobs) {
			if !m.inJoin { // the collector has not reached Join: it finds the jobs done there
				m.look(w)
				return
			}
			// The collector is woken once the call has reached it, as
			// wakeAll wakes; the waker's CPU is the whole call.
			m.after(m.c.WakeCall+m.c.WakePer, func() { m.wakeThread(m.collector, m.finish) })
			m.cpu(w, m.wakeCost(w, m.collector), func() { m.look(w) })
			return
		}
		m.look(w)
	})
}

// sleep is a worker finding nothing: it registers as a waiter, releases
// the lock and spends the rest of a futile wake-up's time going to sleep.
// Futile is all of that time, the release's hand-off wake included, as
// Calibrate measures it: every CPU the workers ran in gated rounds, lock
// hand-offs and all, divided by their futile wake-ups.
func (m *machine) sleep(w *thread, justWoke bool) {
	if justWoke {
		m.res.FutileWakeups++
		if m.s.Wake == Targeted && m.awake > 0 {
			m.awake--
		}
	}
	m.parked = append(m.parked, w)
	w.parking = true
	handoff := m.unlockCost(w)
	m.unlock(w, func() {
		m.cpu(w, max(0, m.c.Futile-m.c.Take-handoff), func() {
			w.parking = false
			if w.rewake {
				m.returned()
				w.rewake = false
				w.tookSome, w.justWoke = false, true
				m.look(w)
				return
			}
			m.block(w)
		})
	})
}

// join is the collector in Join: it returns at once if the jobs are done,
// else sleeps until the worker that finishes the last one wakes it.
func (m *machine) join() {
	if m.done == len(m.s.Jobs) {
		m.finish()
		return
	}
	m.inJoin = true
	m.block(m.collector)
}

// finish is the collector's return from Join.
func (m *machine) finish() {
	m.finished = true
	m.res.Dispatch = m.now
	m.res.ToFirstJob = m.firstStart
	m.res.JobSpan = m.lastEnd - m.firstStart
	m.res.JoinLatency = m.now - m.lastEnd
	// The mutator's time until the next collection: the collector leaves
	// its core to the workers still awake, which go back to sleep
	// (newCollection puts it back).
	m.block(m.collector)
}

// timeN is a duration the simulation charges.
type timeN = time.Duration
