package pausemodel

import (
	"container/heap"
	"errors"
	"fmt"
	"time"
)

// Costs are the host's primitive costs the simulation charges (see the
// package documentation for where each is spent).
type Costs struct {
	WakeToRun time.Duration `json:"wake_to_run"` // a futex wake until the woken thread runs
	WakeCall  time.Duration `json:"wake_call"`   // the waker's CPU per wake call that wakes someone
	WakePer   time.Duration `json:"wake_per"`    // the waker's CPU per thread woken
	Futile    time.Duration `json:"futile"`      // a woken worker's CPU for a wake-up that finds no job
	Push      time.Duration `json:"push"`        // the enqueuer's CPU under the lock per job pushed
	Take      time.Duration `json:"take"`        // a worker's CPU under the lock to look at the queue
}

// Protocol is how the collector hands the jobs to a gated pool.
type Protocol int

// The protocols: SGen's before and after its fix.
const (
	PerJob Protocol = iota // lock, push, wake, unlock, once per job; then Start
	Batch                  // one lock, every push, one wake; then Start
)

func (p Protocol) String() string { return [...]string{"perjob", "batch"}[p] }

// Wake is the pool's wake policy.
type Wake int

// The policies the model knows.
const (
	Broadcast Wake = iota
	Targeted
)

func (w Wake) String() string { return [...]string{"broadcast", "targeted"}[w] }

// ErrShape is wrapped by Simulate's errors about its input.
var ErrShape = errors.New("pausemodel: invalid shape")

// A Shape is one collection to simulate.
type Shape struct {
	Cores, Workers int
	Protocol       Protocol
	Wake           Wake
	// Jobs are the jobs' CPU costs, in enqueue order.
	Jobs []time.Duration
}

// A Result is one simulated collection's dispatch, split as gcsim.Record
// splits a measured one: ToFirstJob + JobSpan + JoinLatency = Dispatch.
type Result struct {
	Dispatch, ToFirstJob, JobSpan, JoinLatency time.Duration
	// FutileWakeups counts wake-ups that found no job; Wakes every thread
	// woken by a wake call, workers and collector.
	FutileWakeups, Wakes int
	// Preemptions counts the collector's bursts a woken worker preempted.
	Preemptions int
}

// maxThreads bounds a shape: the simulation is quadratic in nothing, but
// a shape is a pool, and pools are bounded (workerpool.MaxWorkers).
const maxThreads = 4096

// Simulate runs one collection of shape s with costs c, from the end of
// card preparation (every worker waiting, the gate closed) to the
// collector's return from Join.
func Simulate(c Costs, s Shape) (Result, error) {
	switch {
	case s.Cores < 1 || s.Workers < 1 || s.Workers > maxThreads:
		return Result{}, fmt.Errorf("%w: %d cores, %d workers", ErrShape, s.Cores, s.Workers)
	case len(s.Jobs) == 0:
		return Result{}, fmt.Errorf("%w: no jobs", ErrShape)
	}
	m := newMachine(c, s)
	m.collect()
	m.run()
	if m.done != len(s.Jobs) || !m.finished {
		return Result{}, fmt.Errorf("pausemodel: simulation stalled with %d of %d jobs done", m.done, len(s.Jobs))
	}
	return m.res, nil
}

// machine is the simulated host: a clock, an event queue, the cores and
// their run queue, the queue lock and the pool's state.
type machine struct {
	c      Costs
	s      Shape
	now    time.Duration
	events eventQueue
	seq    int

	freeCores       int
	runQueue        []burst
	collectorOnCore *running // the collector's burst, if it is on a core

	lockHeld    bool
	lockWaiters []func()

	gate, finished bool
	queued, next   int // jobs pushed and not yet taken; the next job's index
	done           int
	workers        []*worker
	parked         []*worker // waiting workers, most recent last
	awake          int       // Targeted: workers woken that have not yet taken a job
	firstStart     time.Duration
	lastEnd        time.Duration
	end            time.Duration
	res            Result
}

type worker struct {
	id       int
	parked   bool
	parking  bool // in the CPU burst of going back to sleep
	rewake   bool // woken during that burst: go again at once
	tookSome bool // has taken a job since it last woke
	justWoke bool // its next burst is its first since a wake
}

// timeN is a duration the simulation charges.
type timeN = time.Duration

type burst struct {
	d         time.Duration
	then      func()
	collector bool
}

func newMachine(c Costs, s Shape) *machine {
	m := &machine{c: c, s: s, freeCores: s.Cores, firstStart: -1}
	for i := range s.Workers {
		m.parked = append(m.parked, &worker{id: i, parked: true})
	}
	return m
}

// The event loop.

type event struct {
	at  time.Duration
	seq int
	fn  func()
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (m *machine) after(d time.Duration, fn func()) {
	m.seq++
	heap.Push(&m.events, event{at: m.now + d, seq: m.seq, fn: fn})
}

func (m *machine) run() {
	for m.events.Len() > 0 {
		e := heap.Pop(&m.events).(event)
		m.now = e.at
		e.fn()
	}
}

// cpu runs a burst of d on a core, when one is free, then calls then.
func (m *machine) cpu(d time.Duration, then func()) { m.burstOn(burst{d: d, then: then}) }

// collectorCPU is cpu for the collector's bursts, which a woken worker
// may preempt (see wokenCPU).
func (m *machine) collectorCPU(d time.Duration, then func()) {
	m.burstOn(burst{d: d, then: then, collector: true})
}

// wokenCPU is cpu for a worker's first burst after a wake. Linux's
// scheduler lets a thread that wakes after sleeping preempt the thread
// running on its CPU (its sleep left it behind in virtual run time): if
// no core is free and the collector is running, the worker takes the
// collector's core and the collector waits in the run queue for the rest
// of its burst.
func (m *machine) wokenCPU(d time.Duration, then func()) {
	if m.freeCores == 0 && m.collectorOnCore != nil {
		r := m.collectorOnCore
		r.cancelled = true
		m.collectorOnCore = nil
		m.res.Preemptions++
		m.runQueue = append(m.runQueue, burst{d: r.end - m.now, then: r.then, collector: true})
		m.freeCores++
	}
	m.cpu(d, then)
}

// running is a burst on a core; a preempted one is cancelled and its end
// event does nothing.
type running struct {
	end       time.Duration
	then      func()
	cancelled bool
}

func (m *machine) burstOn(b burst) {
	if m.freeCores == 0 {
		m.runQueue = append(m.runQueue, b)
		return
	}
	m.freeCores--
	m.startBurst(b)
}

func (m *machine) startBurst(b burst) {
	r := &running{end: m.now + b.d, then: b.then}
	if b.collector {
		m.collectorOnCore = r
	}
	m.after(b.d, func() {
		if r.cancelled {
			return
		}
		if m.collectorOnCore == r {
			m.collectorOnCore = nil
		}
		m.release()
		r.then()
	})
}

func (m *machine) release() {
	if len(m.runQueue) == 0 {
		m.freeCores++
		return
	}
	b := m.runQueue[0]
	m.runQueue = m.runQueue[1:]
	m.startBurst(b)
}

// lock calls then holding the queue lock: at once if it is free (a
// running thread takes a free lock even while others sleep on it, as a
// futex mutex lets it), else after sleeping until an unlock wakes it and
// it finds the lock free.
func (m *machine) lock(then func()) {
	if !m.lockHeld {
		m.lockHeld = true
		then()
		return
	}
	m.lockWaiters = append(m.lockWaiters, then)
}

// unlock frees the lock, then calls then. If threads sleep on the lock,
// the unlocker first wakes the longest sleeper (a wake call on its CPU),
// which tries again WakeToRun later.
func (m *machine) unlock(then func()) {
	m.lockHeld = false
	if len(m.lockWaiters) == 0 {
		then()
		return
	}
	next := m.lockWaiters[0]
	m.lockWaiters = m.lockWaiters[1:]
	m.res.Wakes++
	m.after(m.c.WakeToRun, func() { m.lock(next) })
	m.cpu(m.wakeCost(1), then)
}

// wakeCost is the waker's CPU for a wake call that wakes n threads.
func (m *machine) wakeCost(n int) time.Duration {
	if n == 0 {
		return 0
	}
	return m.c.WakeCall + time.Duration(n)*m.c.WakePer
}
