package pausemodel

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// Costs are the host's primitive costs the simulation charges (see the
// package documentation for where each is spent).
type Costs struct {
	WakeToRun time.Duration `json:"wake_to_run"` // a futex wake until the woken thread runs, on an idle core
	WakeCall  time.Duration `json:"wake_call"`   // the waker's time per wake system call
	WakePer   time.Duration `json:"wake_per"`    // the waker's time per thread the call wakes
	WakeIdle  time.Duration `json:"wake_idle"`   // the waker's extra time per idle core it wakes a thread onto
	Futile    time.Duration `json:"futile"`      // a woken worker's time for a wake-up that finds no job
	Enqueue   time.Duration `json:"enqueue"`     // the enqueuer's CPU per enqueue call that wakes nobody: the lock round trip and a push
	Push      time.Duration `json:"push"`        // the enqueuer's CPU under the lock per job pushed beyond a call's first
	Take      time.Duration `json:"take"`        // a worker's CPU under the lock to look at the queue and take a grab
	// HandOff is the PI mutex's cost of a hand-off beyond its wake call:
	// CPU the new owner spends, once it runs, before it can use the mutex
	// it was given (FUTEX_LOCK_PI's return through the rt_mutex, the
	// switch onto its core, the job callback's return into Go on a thread
	// that slept). The simulation charges it at every PI hand-off, with
	// the mutex still held. Calibrate measures it on one CPU, where every
	// hand-off is such a switch (measureHandOff); 0 for the normal mutex,
	// which hands nothing off.
	HandOff time.Duration `json:"hand_off,omitempty"`
	// Tick is the scheduler tick's period (1/HZ): how often a busy core's
	// tick can start a balance that an idle core missed.
	Tick time.Duration `json:"tick,omitempty"`
	// SysmonEvery and Sysmon are the Go runtime's part (runtime.go): how
	// often sysmon looks while it finds callbacks' Ps to take, and the
	// CPU the runtime's threads spend per look, as Calibrate measures them
	// on rounds of Go callbacks with the whole process on one CPU
	// (measureRuntime). Kernel.Sysmon charges them; 0: nothing.
	SysmonEvery time.Duration `json:"sysmon_every,omitempty"`
	Sysmon      time.Duration `json:"sysmon,omitempty"`
	// WakeToRunDist is wake-to-run's distribution, as the calibration
	// measured it: its QuantileCount mid-quantiles (Quantiles). The
	// simulation draws each wake onto an idle core from it, so that a
	// waiter woken on another core loses the mutex to a holder that
	// re-takes it sooner (barging) as often as the measured latencies
	// say, not as their median alone would. All zero: every wake takes
	// WakeToRun.
	WakeToRunDist [QuantileCount]time.Duration `json:"wake_to_run_dist"`
}

// Modes lists the dispatch modes the model simulates, in gcsim's order:
// SGen's per-job dispatch and its batch, before and after its fix, and
// workerpool's StartBatch. gcsim.Serial dispatches nothing to simulate.
func Modes() []gcsim.Mode { return []gcsim.Mode{gcsim.PerJob, gcsim.Batch, gcsim.StartBatch} }

// MutexKinds lists the mutex kinds the model simulates and Calibrate
// measures, in workerpool's order:
//
//   - workerpool.MutexNormal, glibc's default mutex, a lowlevellock
//     (nptl/lowlevellock.c, Drepper's "Futexes Are Tricky" mutex 3): a
//     running thread takes a free lock at once, even while others sleep on
//     it (barging);
//   - workerpool.MutexPI, PTHREAD_PRIO_INHERIT, mono's kind on Linux: a
//     contended lock is taken with FUTEX_LOCK_PI and released with
//     FUTEX_UNLOCK_PI, which makes the top waiter its owner before it runs
//     (the kernel's kernel/futex/pi.c and kernel/locking/rtmutex.c): nobody
//     can barge, and each hand-off waits for its new owner to be scheduled.
//
// workerpool.MutexAdaptive, which spins before it sleeps, is not modelled.
func MutexKinds() []workerpool.MutexKind {
	return []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI}
}

// ErrNotModelled is wrapped by the errors about a dispatch mode or a mutex
// kind the model does not simulate (not among Modes or MutexKinds); the
// error names the value and the ones the model has.
var ErrNotModelled = errors.New("pausemodel: not modelled")

// checkModelled returns nil if the model simulates mode and mutex, else an
// error wrapping ErrNotModelled.
func checkModelled(mode gcsim.Mode, mutex workerpool.MutexKind) error {
	if !slices.Contains(Modes(), mode) {
		return fmt.Errorf("%w: mode %v (the model has %s)", ErrNotModelled, mode, names(Modes()))
	}
	return checkMutex(mutex)
}

// checkMutex returns nil if the model simulates mutex kind k, else an
// error wrapping ErrNotModelled.
func checkMutex(k workerpool.MutexKind) error {
	if !slices.Contains(MutexKinds(), k) {
		return fmt.Errorf("%w: mutex kind %v (the model has %s)", ErrNotModelled, k, names(MutexKinds()))
	}
	return nil
}

// names is "a, b and c" of vs' names.
func names[T fmt.Stringer](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// ErrShape is wrapped by Simulate's errors about its input, but for a
// mode or a mutex kind the model lacks (ErrNotModelled).
var ErrShape = errors.New("pausemodel: invalid shape")

// A Shape is one collection to simulate.
type Shape struct {
	Cores, Workers int
	// Mode is how the collector hands the jobs to the gated pool, and
	// Mutex the kind of the pool's mutex: one of Modes and of MutexKinds.
	// The zero Mode, gcsim.Serial, is not one: a Shape names its mode.
	Mode  gcsim.Mode
	Mutex workerpool.MutexKind
	// Jobs are the jobs' CPU costs, in enqueue order.
	Jobs []time.Duration
	// Kernel is what the kernel did, where a measurement says it; its
	// zero value is the model's own rules.
	Kernel Kernel
}

// A Result is one simulated collection's dispatch, split as gcsim.Record
// splits a measured one: ToFirstJob + JobSpan + JoinLatency = Dispatch.
type Result struct {
	Dispatch, ToFirstJob, JobSpan, JoinLatency time.Duration
	// FutileWakeups counts workers' wake-ups that found no job; Wakes
	// every thread woken, workers and collector, by a wake call or a lock
	// release; Broadcasts the work condition's broadcasts; Locks every
	// mutex acquisition, the collector's and the workers'.
	FutileWakeups, Wakes, Broadcasts, Locks int
	// HandOffs counts PI releases that made a sleeper the mutex's owner;
	// SpinHandOffs those that made a spinning waiter its owner.
	HandOffs, SpinHandOffs int
	// Preemptions counts the collector's bursts a woken worker preempted.
	Preemptions int
	// WorkerCPU and WorkerWait are the workers' time on a core and their
	// time runnable but not running (in a run queue, or on the way onto an
	// idle core), summed over the workers, from the first enqueue until
	// every thread has settled: what gcsim's worker_cpu_us and
	// worker_wait_us measure of a collection.
	WorkerCPU, WorkerWait time.Duration
}

// maxThreads bounds a shape's workers and cores: a shape is a pool, and
// pools are bounded (workerpool.MaxWorkers); more cores than workers+1
// would sit idle.
const maxThreads = 4096

// Simulate runs a collection of shape s with costs c, from the end of
// card preparation (every worker waiting, the gate closed) to the
// collector's return from Join, and reports it: SimulateSeries with
// s.Jobs as its one collection.
func Simulate(c Costs, s Shape) (Result, error) {
	return SimulateSeries(c, s, [][]time.Duration{s.Jobs})
}

// SimulateSeries simulates one collection of shape s per element of
// series, with that element as its jobs (s.Jobs is ignored), one after
// another on one machine, so that each starts with the threads where the
// one before left them, and reports their mean: durations averaged,
// counts rounded to the nearest. A first, unreported collection of the
// last element places the threads (see the package documentation).
//
// The mean of a series is what a measured mean pause is, and it does not
// hang on one collection, whose outcome can turn on which of two threads
// reaches a core or the lock first.
func SimulateSeries(c Costs, s Shape, series [][]time.Duration) (Result, error) {
	switch {
	case s.Cores < 1 || s.Cores > maxThreads || s.Workers < 1 || s.Workers > maxThreads:
		return Result{}, fmt.Errorf("%w: %d cores, %d workers", ErrShape, s.Cores, s.Workers)
	case len(series) == 0:
		return Result{}, fmt.Errorf("%w: no collections", ErrShape)
	}
	if err := checkModelled(s.Mode, s.Mutex); err != nil {
		return Result{}, err
	}
	if err := s.Kernel.check(s.Workers); err != nil {
		return Result{}, err
	}
	for _, f := range costFields {
		if *f(&c) < 0 {
			return Result{}, fmt.Errorf("%w: a negative cost in %v", ErrShape, c)
		}
	}
	for _, d := range c.WakeToRunDist {
		if d < 0 {
			return Result{}, fmt.Errorf("%w: a negative wake-to-run quantile in %v", ErrShape, c.WakeToRunDist)
		}
	}
	for _, js := range series {
		if len(js) == 0 {
			return Result{}, fmt.Errorf("%w: no jobs", ErrShape)
		}
		for _, d := range js {
			if d < 0 {
				return Result{}, fmt.Errorf("%w: a job of negative cost %v", ErrShape, d)
			}
		}
	}
	m := newMachine(c, s)
	var sum Result
	for i, js := range append([][]time.Duration{series[len(series)-1]}, series...) {
		m.s.Jobs = js
		m.newCollection()
		m.startAsleepOnMutex()
		ran, waited := m.workerTimes()
		m.collect()
		if m.s.Kernel.Sysmon && m.c.SysmonEvery > 0 && m.c.Sysmon > 0 {
			m.sysmonLoop()
		}
		m.run()
		ranAfter, waitedAfter := m.workerTimes()
		m.res.WorkerCPU, m.res.WorkerWait = ranAfter-ran, waitedAfter-waited
		if m.done != len(js) || !m.finished {
			return Result{}, fmt.Errorf("pausemodel: simulation stalled with %d of %d jobs done", m.done, len(js))
		}
		if len(m.parked) != s.Workers || m.lockHeld || len(m.lockWaiters) > 0 || m.joinWaiting {
			return Result{}, fmt.Errorf("pausemodel: simulation stalled with %d of %d workers asleep after a collection "+
				"(lock held %v, %d asleep on it)", len(m.parked), s.Workers, m.lockHeld, len(m.lockWaiters))
		}
		if i > 0 {
			sum.add(m.res)
		}
	}
	return sum.mean(len(series)), nil
}

// add and mean accumulate and average a series' results.
func (r *Result) add(o Result) {
	r.ToFirstJob += o.ToFirstJob
	r.JobSpan += o.JobSpan
	r.JoinLatency += o.JoinLatency
	r.FutileWakeups += o.FutileWakeups
	r.Wakes += o.Wakes
	r.Broadcasts += o.Broadcasts
	r.Locks += o.Locks
	r.HandOffs += o.HandOffs
	r.SpinHandOffs += o.SpinHandOffs
	r.Preemptions += o.Preemptions
	r.WorkerCPU += o.WorkerCPU
	r.WorkerWait += o.WorkerWait
}

func (r Result) mean(n int) Result {
	d := time.Duration(n)
	count := func(c int) int { return (2*c + n) / (2 * n) }
	m := Result{ToFirstJob: r.ToFirstJob / d, JobSpan: r.JobSpan / d, JoinLatency: r.JoinLatency / d,
		FutileWakeups: count(r.FutileWakeups), Wakes: count(r.Wakes), Broadcasts: count(r.Broadcasts), Locks: count(r.Locks),
		HandOffs: count(r.HandOffs), SpinHandOffs: count(r.SpinHandOffs), Preemptions: count(r.Preemptions),
		WorkerCPU: r.WorkerCPU / d, WorkerWait: r.WorkerWait / d}
	m.Dispatch = m.ToFirstJob + m.JobSpan + m.JoinLatency // the parts still add up, rounding and all
	return m
}

// newCollection starts a collection at time 0 with the pool's state reset
// and every thread where the last one left it: the collector on its core,
// every worker asleep.
func (m *machine) newCollection() {
	if c := m.collector.core; !m.collector.onCore && c.running == nil { // back from the mutator (finish)
		c.running, m.collector.onCore = m.collector, true
	}
	m.now, m.events, m.yield, m.ahead = 0, m.events[:0], false, 0
	m.gate, m.finished, m.joinWaiting = false, false, false
	m.queued, m.next, m.done = 0, 0, 0
	m.firstStart, m.lastEnd, m.res = -1, 0, Result{}
	m.credit = 0
	m.tickDue = false
	m.owner, m.spinner = nil, nil
	for _, c := range m.cores {
		c.preempt = false
	}
	if m.c.Tick > 0 {
		// The tick's phase against the collection's start, through the
		// same fixed scrambled order as the wake-to-run draws.
		m.phase = time.Duration((2*((m.collections*7)%QuantileCount) + 1)) * m.c.Tick / (2 * QuantileCount)
	}
	m.collections++
}

// machine is the simulated host: a clock, an event queue, the cores with
// their run queues, the queue lock and the pool's state.
type machine struct {
	c      Costs
	s      Shape
	now    time.Duration
	events eventQueue
	seq    int

	cores     []*core
	collector *thread
	workers   []*thread
	sysmon    *thread // the Go runtime's threads at sysmon's looks (Kernel.Sysmon)
	yield     bool    // woken workers wait at the head of the collector's core: it yields at its burst's end
	ahead     int     // how many: the collector goes behind them

	lockHeld    bool
	contended   bool      // Normal: the lock word says sleepers may wait: its unlock makes a wake call
	lockWaiters []pending // asleep on the mutex, in the order they came (PI: the kernel's waiter order at equal priority)
	owner       *thread   // PI: the mutex's owner, or the sleeper a release made its owner
	spinner     *thread   // PI: the top waiter, spinning on its core while the owner runs on another
	spinFrom    time.Duration

	gate, finished bool
	joinWaiting    bool      // the collector waits on done_cond, not yet signalled
	queued, next   int       // jobs pushed and not yet taken; the next job's index
	done           int       // jobs retired
	parked         []*thread // workers waiting on the work condition, not yet signalled, most recent last
	firstStart     time.Duration
	lastEnd        time.Duration
	res            Result

	draws         int           // wake-to-run draws so far (wakeToRun)
	credit        float64       // measured preemptions not yet spent (PreemptMeasured)
	phase         time.Duration // the first tick of this collection (BalanceAtTick)
	tickDue       bool          // a tick's balance is due (pullAtTick)
	collections   int           // collections begun, for the ticks' phases
	placedOnOwner float64       // running sum of the measured share on the collector's CPU (Kernel.Placed)
}

// core is one CPU: the thread running on it, if any, whether a woken
// thread is on its way onto it, and its run queue.
type core struct {
	running  *thread
	reserved bool
	queue    []pending
	preempt  bool // the head of queue preempts the running worker at its burst's end (sysmonLook)
}

func (c *core) idle() bool { return c.running == nil && !c.reserved && len(c.queue) == 0 }

// thread is the collector or a worker. A thread on a core keeps it from
// burst to burst until it blocks (on the lock, in its wait, in Join) or
// yields it to a woken worker; off a core, core is the one it last ran on.
type thread struct {
	core     *core
	onCore   bool
	parking  bool          // registered as a condition waiter, on its way into the kernel
	rewake   bool          // signalled during that: go round again at once
	justWoke bool          // its next look is its first since a wake
	ran      time.Duration // CPU charged to it so far
	// waiting says it is runnable but not running since runnableAt;
	// waited is all such time so far.
	waiting    bool
	runnableAt time.Duration
	waited     time.Duration
}

// runnable marks t runnable and not running from now, until runOn.
func (t *thread) runnable(now time.Duration) {
	if !t.waiting {
		t.waiting, t.runnableAt = true, now
	}
}

// pending is a thread waiting for a core (or for the lock) and what it
// does once it has it.
type pending struct {
	t    *thread
	d    time.Duration
	then func()
}

func newMachine(c Costs, s Shape) *machine {
	m := &machine{c: c, s: s, firstStart: -1}
	for range s.Cores {
		m.cores = append(m.cores, &core{})
	}
	// The collector has just prepared the cards on core 0; the workers
	// last ran the previous collection's jobs, spread over every core.
	m.collector = &thread{core: m.cores[0], onCore: true}
	m.cores[0].running = m.collector
	m.sysmon = &thread{core: m.cores[0]}
	for i := range s.Workers {
		m.workers = append(m.workers, &thread{core: m.cores[(i+1)%s.Cores]})
	}
	m.parked = slices.Clone(m.workers)
	return m
}

// workerTimes is the workers' CPU and wait so far, summed.
func (m *machine) workerTimes() (ran, waited time.Duration) {
	for _, w := range m.workers {
		ran += w.ran
		waited += w.waited
	}
	return ran, waited
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

// Cores.

// cpu runs a burst of d for t, on its core if it is on one, else once its
// core's run queue gives it the core, then calls then (t still on its
// core).
func (m *machine) cpu(t *thread, d time.Duration, then func()) {
	if t.onCore {
		m.startBurst(t, d, then)
		return
	}
	m.ready(t, t.core, d, then)
}

// ready makes t runnable on c: at once if c is idle, else at the back of
// its run queue.
func (m *machine) ready(t *thread, c *core, d time.Duration, then func()) {
	m.reschedule(c)
	if c.running == nil && !c.reserved {
		m.runOn(c, pending{t, d, then})
		return
	}
	t.runnable(m.now)
	c.queue = append(c.queue, pending{t, d, then})
}

func (m *machine) runOn(c *core, p pending) {
	if p.t.waiting {
		p.t.waiting, p.t.waited = false, p.t.waited+m.now-p.t.runnableAt
	}
	c.running = p.t
	p.t.core, p.t.onCore = c, true
	m.startBurst(p.t, p.d, p.then)
}

func (m *machine) startBurst(t *thread, d time.Duration, then func()) {
	t.ran += d
	m.after(d, func() {
		if t == m.collector && len(t.core.queue) > 0 && !m.yield && m.spendPreemption() {
			m.yield, m.ahead = true, len(t.core.queue) // a measured preemption: whoever waits on its core runs first
		}
		if t == m.collector && m.yield && len(t.core.queue) > 0 {
			// Woken workers wait at the head of this core's queue: the
			// collector yields to them and resumes once they have all
			// run, ahead of threads queued before them.
			m.yield = false
			m.res.Preemptions++
			t.runnable(m.now)
			c := t.core
			c.queue = slices.Insert(c.queue, min(m.ahead, len(c.queue)), pending{t, 0, then})
			m.ahead = 0
			t.onCore, c.running = false, nil
			m.ownerOff(t)
			m.schedule(c)
			return
		}
		if c := t.core; c.preempt && len(c.queue) > 0 && c.queue[0].t == m.sysmon {
			// The head of the queue has slept and preempts t, which
			// resumes right after it.
			c.preempt = false
			t.runnable(m.now)
			c.queue = slices.Insert(c.queue, 1, pending{t, 0, then})
			t.onCore, c.running = false, nil
			m.ownerOff(t)
			m.schedule(c)
			return
		}
		then()
	})
}

// block takes t off its core (it sleeps) and gives the core to the next
// runnable thread.
func (m *machine) block(t *thread) {
	if t == m.collector {
		m.yield, m.ahead = false, 0
	}
	c := t.core
	t.onCore, c.running = false, nil
	m.ownerOff(t)
	m.schedule(c)
}

// schedule runs the head of c's run queue on c or, if it is empty, takes
// the head of the longest other queue: at once (newly-idle balancing)
// unless the Shape's Kernel says BalanceAtTick, which leaves it to the
// next tick (pullAtTick).
func (m *machine) schedule(c *core) {
	if c.reserved {
		return
	}
	if len(c.queue) > 0 {
		p := c.queue[0]
		c.queue = c.queue[1:]
		m.runOn(c, p)
		return
	}
	if m.s.Kernel.Balance == BalanceAtTick && m.c.Tick > 0 {
		m.pullAtTick()
		return
	}
	m.pull(c)
}

// pull runs on the idle core c the head of the longest other run queue,
// if any thread waits in one.
func (m *machine) pull(c *core) {
	from := c
	for _, o := range m.cores {
		if len(o.queue) > len(from.queue) {
			from = o
		}
	}
	if len(from.queue) == 0 {
		return
	}
	p := from.queue[0]
	from.queue = from.queue[1:]
	m.runOn(c, p)
}

// pullAtTick has every idle core pull a waiting thread at the next tick,
// if a thread then waits in a queue while a core idles: the busy core's
// tick kicks the idle one's balance (nohz_balancer_kick, for a run queue
// of two or more, in kernel/sched/fair.c). The ticks fall at the
// collection's phase plus multiples of Costs.Tick.
func (m *machine) pullAtTick() {
	if m.tickDue || !slices.ContainsFunc(m.cores, func(c *core) bool { return len(c.queue) > 0 }) {
		return
	}
	m.tickDue = true
	next := m.phase
	if m.now >= next {
		next += ((m.now-m.phase)/m.c.Tick + 1) * m.c.Tick
	}
	m.after(next-m.now, func() {
		m.tickDue = false
		for _, c := range m.cores {
			if c.idle() {
				m.pull(c)
			}
		}
		if slices.ContainsFunc(m.cores, (*core).idle) {
			m.pullAtTick()
		}
	})
}

// Wakes.

// wakeThread makes the sleeping thread t runnable and calls then once it
// runs. Linux puts it on the core it last ran on if that core is idle,
// else on an idle core if there is one, where it runs WakeToRun later,
// when the core has come up (without that, a thread woken behind a busy
// core's long burst waits it out while other cores idle, and a chain of
// lock hand-offs runs one grab at a time); with no core idle it waits in
// the run queue of the core it last ran on, except that a worker woken
// onto the collector's core goes ahead of the collector where the
// Shape's Kernel lets it preempt (mayPreempt; by the model's own rule,
// always): if the collector runs, it yields when its current burst ends
// and resumes only after every worker woken onto its core meanwhile; if
// it waits in the queue, the worker goes just before it (wakeup
// preemption, kernel/sched/fair.c, check_preempt_wakeup_fair). A core
// that runs out of work takes queued threads from the others (schedule).
func (m *machine) wakeThread(t, waker *thread, then func()) {
	m.res.Wakes++
	t.runnable(m.now)
	c, idle := m.placement(t, waker, nil)
	if t != m.collector && m.s.Kernel.Placed {
		c, idle, m.placedOnOwner = m.measuredPlace(t, nil, m.placedOnOwner)
	}
	if !idle {
		m.reschedule(c)
	}
	if idle {
		c.reserved = true
		m.after(m.wakeToRun(), func() {
			c.reserved = false
			if c.running != nil { // another thread was balanced onto it meanwhile
				m.ready(t, c, 0, then)
				return
			}
			m.runOn(c, pending{t, 0, then})
		})
		return
	}
	if t != m.collector && c.running == m.collector && !m.mayPreempt() {
		m.ready(t, c, 0, then) // it waits for the collector to block
		return
	}
	if t != m.collector && c.running == m.collector {
		m.yield = true
		c.queue = slices.Insert(c.queue, min(m.ahead, len(c.queue)), pending{t, 0, then})
		m.ahead++
		return
	}
	if t != m.collector && c == m.collector.core && !m.collector.onCore && m.s.Kernel.Preemption != PreemptNever {
		if i := slices.IndexFunc(c.queue, func(p pending) bool { return p.t == m.collector }); i >= 0 {
			c.queue = slices.Insert(c.queue, i, pending{t, 0, then})
			return
		}
	}
	m.ready(t, c, 0, then)
}

// The mutex.

// lock calls then with t holding the mutex: at once if it is free (a
// running thread takes a free mutex even while others sleep on it: the
// fast path of either kind is a compare-and-swap in user space), else
// after t has slept on it until an unlock woke it (Normal) or handed it
// over (PI). t must be running.
func (m *machine) lock(t *thread, then func()) { m.lockAs(t, false, then) }

// lockAs is lock; retry says a Normal mutex is taken marked contended, as
// a thread woken from a sleep on it takes it (lll_lock's exchange with 2)
// and as __pthread_mutex_cond_lock takes it after a condition wait.
func (m *machine) lockAs(t *thread, retry bool, then func()) {
	if !m.lockHeld {
		// Sleepers left on a normal mutex keep it marked contended: each
		// one woken and beaten to it marks it again (lll_lock's exchange
		// with 2) before it sleeps.
		m.lockHeld, m.contended = true, retry || len(m.lockWaiters) > 0
		m.owner = t
		m.res.Locks++
		then()
		return
	}
	m.contended = true
	m.lockWaiters = append(m.lockWaiters, pending{t: t, then: then})
	if m.s.Mutex == workerpool.MutexPI && len(m.lockWaiters) == 1 && m.owner != nil && m.owner.onCore && m.owner.core != t.core {
		m.spinner, m.spinFrom = t, m.now
		return
	}
	m.block(t)
}

// The PI mutex's top waiter spins in the kernel while the owner runs on
// another core (rtmutex_spin_on_owner, in rt_mutex_slowlock_block, which
// FUTEX_LOCK_PI's wait goes through): it keeps its core, and the release
// hands the mutex to it with no sleep and no wake-up onto a core. It
// stops, and sleeps as the other waiters do, when the owner leaves its
// core (ownerOff) or its own core has another thread to run
// (reschedule). Only the top waiter spins; a release makes the next one
// top while it sleeps, so it does not.

// ownerOff stops the spin if t, leaving its core, owns the mutex.
func (m *machine) ownerOff(t *thread) {
	if m.spinner != nil && t == m.owner {
		m.stopSpin()
	}
}

// reschedule stops the spin if c runs the spinner and a thread is about
// to wait for c: the wake-up sets need_resched, unless the Shape's
// Kernel says woken threads never preempt.
func (m *machine) reschedule(c *core) {
	if m.spinner != nil && c.running == m.spinner && m.s.Kernel.Preemption != PreemptNever {
		m.stopSpin()
	}
}

// stopSpin puts the spinner to sleep on the mutex, its spin charged as CPU.
func (m *machine) stopSpin() {
	t := m.spinner
	m.spinner = nil
	t.ran += m.now - m.spinFrom
	m.block(t)
}

// unlock frees the mutex held by t, then calls then.
//
// Normal: if the lock is marked contended, t first makes a wake call
// (unlockCost), which wakes the longest sleeper if any; that one tries
// again once it runs, and a running thread may have taken it meanwhile.
//
// PI: if a thread sleeps on it, FUTEX_UNLOCK_PI makes the longest sleeper
// its owner and wakes it (a wake call): the mutex stays held until that
// thread has run, spent HandOff and released it, whoever else wants it
// meanwhile.
func (m *machine) unlock(t *thread, then func()) {
	if m.s.Mutex == workerpool.MutexPI {
		if len(m.lockWaiters) == 0 {
			m.lockHeld, m.owner = false, nil
			then()
			return
		}
		next := m.lockWaiters[0]
		m.lockWaiters = m.lockWaiters[1:]
		m.res.Locks++
		m.owner = next.t
		if next.t == m.spinner {
			// The kernel's release wakes the spinner, which is running: the
			// call's cost, and the spinner goes on once the release is done.
			m.spinner = nil
			m.res.SpinHandOffs++
			call, from := m.c.WakeCall+m.c.WakePer, m.spinFrom
			m.after(call, func() {
				next.t.ran += m.now - from
				next.then()
			})
			m.cpu(t, call, then)
			return
		}
		m.res.HandOffs++
		owner := next.then
		if m.c.HandOff > 0 {
			owner = func() { m.cpu(next.t, m.c.HandOff, next.then) }
		}
		cost := m.wakeCost(t, next.t)
		m.after(m.c.WakeCall+m.c.WakePer, func() { m.wakeThread(next.t, t, owner) })
		m.cpu(t, cost, then)
		return
	}
	cost, contended := m.unlockCost(t), m.contended
	m.lockHeld, m.contended, m.owner = false, false, nil
	if !contended {
		then()
		return
	}
	if len(m.lockWaiters) > 0 {
		next := m.lockWaiters[0]
		m.lockWaiters = m.lockWaiters[1:]
		// The sleeper is woken once the call has reached it, as wakeAll
		// wakes (an interrupt to bring its core out of idle comes after,
		// on the waker's CPU), before t's next burst: a woken worker can
		// take t's core before t takes the lock again.
		m.after(m.c.WakeCall+m.c.WakePer, func() { m.wakeThread(next.t, t, func() { m.lockAs(next.t, true, next.then) }) })
	}
	m.cpu(t, cost, then)
}

// unlockCost is t's time to release the lock as it stands: nothing if it
// is not marked contended, else a wake call, of the longest sleeper if
// there is one.
func (m *machine) unlockCost(t *thread) time.Duration {
	switch {
	case m.s.Mutex == workerpool.MutexPI && len(m.lockWaiters) == 0:
		return 0
	case m.s.Mutex == workerpool.MutexPI && m.lockWaiters[0].t == m.spinner:
		return m.c.WakeCall + m.c.WakePer
	case m.s.Mutex == workerpool.MutexPI:
		return m.wakeCost(t, m.lockWaiters[0].t)
	case !m.contended:
		return 0
	case len(m.lockWaiters) == 0:
		return m.c.WakeCall
	}
	return m.wakeCost(t, m.lockWaiters[0].t)
}

// wakeCost is the waker's time for a wake call that wakes the threads ws:
// WakeCall, WakePer for each, and WakeIdle for each idle core other than
// the waker's that one of them goes to (the interrupt that brings the core
// out of idle; a core one of them is on its way to is not idle for the
// others, which go to other idle cores or queue).
func (m *machine) wakeCost(waker *thread, ws ...*thread) time.Duration {
	d := m.c.WakeCall + time.Duration(len(ws))*m.c.WakePer
	var taken []*core
	acc := m.placedOnOwner
	for _, w := range ws {
		c, idle := m.placement(w, waker, taken)
		if w != m.collector && m.s.Kernel.Placed {
			c, idle, acc = m.measuredPlace(w, taken, acc)
		}
		if idle {
			taken = append(taken, c)
			if c != waker.core {
				d += m.c.WakeIdle
			}
		}
	}
	return d
}

// placement is the core a thread t woken now by waker goes to, and
// whether that core is idle: its last core if idle, else the first idle
// core (select_idle_sibling), else the less loaded of its last core and
// the waker's (wake_affine_weight: a wake-up is pulled to the waker's CPU
// when the thread's own is the busier; kernel/sched/fair.c), counting a
// core's running thread, or one on its way, and its queue. taken lists
// idle cores that threads woken before it in the same call are on their
// way to.
func (m *machine) placement(t, waker *thread, taken []*core) (*core, bool) {
	free := func(c *core) bool { return c.idle() && !slices.Contains(taken, c) }
	if free(t.core) {
		return t.core, true
	}
	if i := slices.IndexFunc(m.cores, free); i >= 0 {
		return m.cores[i], true
	}
	load := func(c *core) int {
		n := len(c.queue)
		if c.running != nil || c.reserved || slices.Contains(taken, c) {
			n++
		}
		return n
	}
	if waker != nil && waker.core != t.core && load(waker.core) < load(t.core) {
		return waker.core, false
	}
	return t.core, false
}
