package pausemodel

// The pool protocol as the simulation runs it: the collector's enqueues
// and Start, and each worker's loop of looking at the queue, running jobs
// and going back to sleep. See the package documentation for the rules.

func (m *machine) collect() {
	m.workers = append([]*worker(nil), m.parked...)
	if m.s.Protocol == Batch {
		m.enqueueAll()
		return
	}
	m.enqueueOne(0)
}

// enqueueOne is SGen's per-job dispatch: lock, push, wake, unlock.
func (m *machine) enqueueOne(i int) {
	m.lock(func() {
		n := m.wakesOnEnqueue()
		m.collectorCPU(m.c.Push+m.wakeCost(n), func() {
			m.queued++
			m.wakeOnEnqueue()
			m.unlock(func() {
				if i+1 < len(m.s.Jobs) {
					m.enqueueOne(i + 1)
					return
				}
				m.start()
			})
		})
	})
}

// enqueueAll is the batch: one lock, every push, one wake.
func (m *machine) enqueueAll() {
	m.lock(func() {
		n := m.wakesOnEnqueue()
		m.collectorCPU(m.c.Push*timeN(len(m.s.Jobs))+m.wakeCost(n), func() {
			m.queued += len(m.s.Jobs)
			m.wakeOnEnqueue()
			m.unlock(m.start)
		})
	})
}

// wakesOnEnqueue is how many workers an enqueue wakes: every waiting one
// for Broadcast, none for Targeted while the gate is closed.
func (m *machine) wakesOnEnqueue() int {
	if m.s.Wake == Broadcast {
		return len(m.parked)
	}
	return 0
}

func (m *machine) wakeOnEnqueue() {
	if m.s.Wake == Broadcast {
		m.broadcast()
	}
}

// start opens the gate: Broadcast wakes every waiting worker, Targeted
// one, who chains the rest. The collector then sleeps in Join.
func (m *machine) start() {
	m.lock(func() {
		n := len(m.parked)
		if m.s.Wake == Targeted {
			n = min(n, 1, m.queued)
		}
		m.collectorCPU(m.wakeCost(n), func() {
			m.gate = true
			if m.s.Wake == Broadcast {
				m.broadcast()
			} else if n > 0 {
				m.wakeOne()
			}
			m.unlock(func() {}) // the collector sleeps in Join
		})
	})
}

// broadcast wakes every waiting worker; one still on its way to sleep
// finds its wait already satisfied and looks again at once.
func (m *machine) broadcast() {
	for _, w := range m.parked {
		if w.parking {
			w.rewake = true
			continue
		}
		m.wake(w)
	}
	m.parked = m.parked[:0]
}

// wakeOne wakes the most recently parked worker (Targeted's stack).
func (m *machine) wakeOne() {
	w := m.parked[len(m.parked)-1]
	m.parked = m.parked[:len(m.parked)-1]
	m.awake++
	if w.parking {
		w.rewake = true
		return
	}
	m.wake(w)
}

func (m *machine) wake(w *worker) {
	m.res.Wakes++
	m.after(m.c.WakeToRun, func() { w.tookSome = false; w.justWoke = true; m.look(w) })
}

// look is a worker at the queue: it takes the next job if the gate is
// open and one is queued (Targeted: waking one more worker if more jobs
// wait than workers are awake), else goes back to sleep.
func (m *machine) look(w *worker) {
	m.lock(func() {
		run := m.cpu
		if w.justWoke {
			w.justWoke, run = false, m.wokenCPU
		}
		run(m.c.Take, func() {
			if !m.gate || m.queued == 0 {
				m.sleep(w)
				return
			}
			job := m.s.Jobs[m.next]
			m.next++
			m.queued--
			if m.s.Wake == Targeted && !w.tookSome && m.awake > 0 {
				m.awake--
			}
			w.tookSome = true
			var chained bool
			if m.s.Wake == Targeted && m.queued > m.awake && len(m.parked) > 0 {
				m.wakeOne()
				chained = true
			}
			m.unlock(func() {
				wake := timeN(0)
				if chained {
					wake = m.wakeCost(1)
				}
				m.cpu(wake, func() { m.runJob(w, job) })
			})
		})
	})
}

func (m *machine) runJob(w *worker, cost timeN) {
	if m.firstStart < 0 {
		m.firstStart = m.now
	}
	m.cpu(cost, func() {
		m.done++
		m.lastEnd = m.now
		if m.done == len(m.s.Jobs) {
			m.cpu(m.wakeCost(1), func() {
				m.res.Wakes++
				m.after(m.c.WakeToRun, m.finish)
			})
		}
		m.look(w)
	})
}

// sleep is a worker finding nothing: it registers as a waiter, releases
// the lock and spends the rest of a futile wake-up's CPU going to sleep.
func (m *machine) sleep(w *worker) {
	if !w.tookSome {
		m.res.FutileWakeups++
		if m.s.Wake == Targeted && m.awake > 0 {
			m.awake--
		}
	}
	m.parked = append(m.parked, w)
	w.parking = true
	m.unlock(func() {
		m.cpu(max(0, m.c.Futile-m.c.Take), func() {
			w.parking = false
			if w.rewake {
				w.rewake = false
				w.tookSome = false
				m.look(w)
			}
		})
	})
}

// finish is the collector's return from Join.
func (m *machine) finish() {
	m.end, m.finished = m.now, true
	m.res.Dispatch = m.end
	m.res.ToFirstJob = m.firstStart
	m.res.JobSpan = m.lastEnd - m.firstStart
	m.res.JoinLatency = m.end - m.lastEnd
}
