package pausemodel

import (
	"time"

	"github.com/gcbench/gcbench/gcsim"
)

// The pool as the simulation runs it: workerpool's Native
// backend, which is SGen's thread pool (mono/sgen/sgen-thread-pool.c,
// thread_func and get_work) on pthreads — the collector's enqueues, Start
// and Join, and each worker's loop of taking one job per mutex hold,
// retiring it and looking for the next in one hold after the job, and
// waiting on the work condition variable. See the package documentation
// for the rules.

func (m *machine) collect() {
	switch m.s.Mode {
	case gcsim.Batch:
		m.enqueue(len(m.s.Jobs), m.start)
	case gcsim.StartBatch:
		m.startBatch()
	default: // gcsim.PerJob
		m.enqueueOne(0)
	}
}

// enqueueOne is SGen's per-job dispatch: lock, push, broadcast, unlock.
func (m *machine) enqueueOne(i int) {
	m.enqueue(1, func() {
		if i+1 < len(m.s.Jobs) {
			m.enqueueOne(i + 1)
			return
		}
		m.start()
	})
}

// enqueue pushes n jobs under one mutex hold and broadcasts the work
// condition under it, as SGen's pool does, then calls then.
func (m *machine) enqueue(n int, then func()) {
	c := m.collector
	m.cpu(c, m.callOutside(), func() {
		m.lock(c, func() {
			m.cpu(c, m.callInside(n), func() {
				m.queued += n
				m.broadcast(func() { m.unlock(c, then) })
			})
		})
	})
}

// callOutside and callInside split the collector's CPU for a call on the
// queue that pushes n jobs (0: Start): Enqueue, which is a call's lock
// round trip and one push, and Push for each job after the first. Under
// the mutex it pushes (Push per job, one for Start's gate); the rest of
// the call, the way into it and out of it, runs with the mutex free:
// that is the holder's re-lock interval between two enqueues, the window
// in which a waiter woken on another core can take the mutex (barging).
func (m *machine) callOutside() timeN { return max(0, m.c.Enqueue-m.c.Push) }

func (m *machine) callInside(n int) timeN {
	return m.c.Enqueue + timeN(max(0, n-1))*m.c.Push - m.callOutside()
}

// broadcast is the collector's pthread_cond_broadcast of the work
// condition: glibc makes no system call when no waiter is left to signal,
// and otherwise one futex_wake of every waiter (nptl/pthread_cond_broadcast.c).
// A waiter already signalled but not yet back from its wait is no longer
// one to signal.
func (m *machine) broadcast(then func()) {
	m.res.Broadcasts++
	m.creditPreemption()
	ws := m.parked
	m.parked = nil
	m.wakeSleepers(ws, then)
}

// wakeSleepers is the collector's wake call for ws, then then; nothing if
// ws is empty.
func (m *machine) wakeSleepers(ws []*thread, then func()) {
	if len(ws) == 0 {
		then()
		return
	}
	m.wakeAll(ws)
	m.cpu(m.collector, m.wakeCost(m.collector, ws...), then)
}

// startBatch is workerpool's StartBatch: one mutex hold to push every job
// and open the gate, the broadcast after the unlock, then Join.
func (m *machine) startBatch() {
	c := m.collector
	m.cpu(c, m.callOutside(), func() {
		m.lock(c, func() {
			m.cpu(c, m.callInside(len(m.s.Jobs)), func() {
				m.queued, m.gate = len(m.s.Jobs), true
				ws := m.parked
				m.parked = nil
				m.res.Broadcasts++
				m.creditPreemption()
				m.unlock(c, func() { m.wakeSleepers(ws, m.join) })
			})
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

// start is sgen_workers_start_all_workers: under the mutex it opens the
// gate and broadcasts; the collector then joins.
func (m *machine) start() {
	c := m.collector
	m.cpu(c, m.callOutside(), func() {
		m.lock(c, func() {
			m.cpu(c, m.callInside(0), func() {
				m.gate = true
				m.broadcast(func() { m.unlock(c, m.join) })
			})
		})
	})
}

// wakeWorker wakes w from its condition wait; one still on its way into
// the kernel finds its futex word changed and goes round again when it
// gets there. Back from the wait, it re-takes the mutex itself
// (__pthread_mutex_cond_lock: a normal mutex marked contended, a PI one
// through FUTEX_LOCK_PI when it is held).
func (m *machine) wakeWorker(w *thread) {
	if w.parking {
		w.rewake = true
		return
	}
	m.wakeThread(w, m.collector, func() { m.retake(w) })
}

// retake is a worker back from its wait taking the mutex again.
func (m *machine) retake(w *thread) {
	m.lockAs(w, true, func() {
		w.justWoke = true
		m.look(w)
	})
}

// look is a worker holding the mutex at the queue (get_work): it takes one
// job if the gate is open and a job is queued, else waits on the work
// condition. A look right after a wake that finds nothing is a futile
// wake-up, as the native pool counts it.
func (m *machine) look(w *thread) {
	m.cpu(w, m.c.Take/2, func() {
		justWoke := w.justWoke
		w.justWoke = false
		if !m.gate || m.queued == 0 {
			if justWoke {
				m.res.FutileWakeups++
			}
			m.wait(w)
			return
		}
		job := m.s.Jobs[m.next]
		m.next++
		m.queued--
		m.unlock(w, func() { m.runJob(w, job) })
	})
}

// runJob runs one job with the mutex released, then takes the mutex to
// retire it (signalling done_cond if the collector is joining) and, still
// holding it, looks for the next: one hold per job, as thread_func returns
// to get_work without unlocking.
func (m *machine) runJob(w *thread, job timeN) {
	if m.firstStart < 0 {
		m.firstStart = m.now
	}
	m.cpu(w, job, func() {
		m.lastEnd = m.now
		m.lock(w, func() {
			m.cpu(w, m.c.Take-m.c.Take/2, func() {
				m.done++
				m.signalJoin(w, func() { m.look(w) })
			})
		})
	})
}

// signalJoin is a retiring worker's pthread_cond_signal of done_cond (SGen
// signals it after every job; only the collector waits there): a wake call
// if the collector sleeps on it unsignalled, else (glibc: no waiter to
// signal) nothing.
func (m *machine) signalJoin(w *thread, then func()) {
	if !m.joinWaiting {
		then()
		return
	}
	m.joinWaiting = false
	c := m.collector
	m.after(m.c.WakeCall+m.c.WakePer, func() {
		if c.parking {
			c.rewake = true
			return
		}
		m.wakeThread(c, w, func() { m.lockAs(c, true, m.joinCheck) })
	})
	m.cpu(w, m.wakeCost(w, c), then)
}

// wait is a worker finding nothing: pthread_cond_wait registers it as a
// waiter, releases the mutex (a hand-off if others wait on it) and spends
// the rest of a futile wake-up's time going to sleep. Futile is all of
// that time, as Calibrate measures it: every CPU the workers ran in gated
// rounds, lock hand-offs and all, divided by their futile wake-ups.
func (m *machine) wait(w *thread) {
	m.parked = append(m.parked, w)
	w.parking = true
	handoff := m.unlockCost(w)
	m.unlock(w, func() {
		m.cpu(w, max(0, m.c.Futile-m.c.Take/2-handoff), func() {
			w.parking = false
			if w.rewake {
				w.rewake = false
				m.retake(w)
				return
			}
			m.block(w)
		})
	})
}

// join is np_join: under the mutex, return if every job is retired (and
// close the gate, as sgen_workers_join does), else wait on done_cond,
// which every retire broadcasts.
func (m *machine) join() {
	m.lock(m.collector, m.joinCheck)
}

// joinCheck is the collector in Join holding the mutex.
func (m *machine) joinCheck() {
	c := m.collector
	m.cpu(c, m.c.Take/2, func() {
		if m.done == len(m.s.Jobs) {
			m.gate = false
			m.unlock(c, m.finish)
			return
		}
		m.joinWaiting = true
		c.parking = true
		m.unlock(c, func() {
			c.parking = false
			if c.rewake {
				c.rewake = false
				m.lockAs(c, true, m.joinCheck)
				return
			}
			m.block(c)
		})
	})
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
