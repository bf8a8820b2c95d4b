package pausemodel

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

// Calibrate measures Costs runs times (at least once) and returns, for
// each cost, the median of the runs, and every run's costs so that a
// caller can show how far they repeat. One run (calibration.once) takes about
// a second and must not share the machine with other work. The caller
// should run with GOMAXPROCS at least CalibrationProcs, as gcbench
// predict does, so that woken threads are not waiting for a P.
//
// It measures workerpool's Native backend with a mutex of kind k: the pool
// the model simulates, on this host's pthreads and kernel. Without the
// Native backend in the build it returns workerpool.ErrNativeUnavailable;
// for a kind not among MutexKinds, an error wrapping ErrNotModelled.
func Calibrate(ctx context.Context, runs int, k workerpool.MutexKind) (Costs, []Costs, error) {
	if err := checkMutex(k); err != nil {
		return Costs{}, nil, err
	}
	if !workerpool.NativeAvailable {
		return Costs{}, nil, fmt.Errorf("pausemodel: calibrating needs the native pool: %w", workerpool.ErrNativeUnavailable)
	}
	cal := calibration{mutex: k}
	all := make([]Costs, 0, max(1, runs))
	for range max(1, runs) {
		c, err := cal.once(ctx)
		if err != nil {
			return Costs{}, all, err
		}
		all = append(all, c)
	}
	var m Costs
	for _, f := range costFields {
		ds := make([]time.Duration, len(all))
		for i := range all {
			ds[i] = *f(&all[i])
		}
		*f(&m) = median(ds)
	}
	for q := range m.WakeToRunDist {
		ds := make([]time.Duration, len(all))
		for i := range all {
			ds[i] = all[i].WakeToRunDist[q]
		}
		m.WakeToRunDist[q] = median(ds)
	}
	return m, all, nil
}

// costFields lists Costs' fields, for per-field statistics.
var costFields = []func(*Costs) *time.Duration{
	func(c *Costs) *time.Duration { return &c.WakeToRun },
	func(c *Costs) *time.Duration { return &c.WakeCall },
	func(c *Costs) *time.Duration { return &c.WakePer },
	func(c *Costs) *time.Duration { return &c.WakeIdle },
	func(c *Costs) *time.Duration { return &c.Futile },
	func(c *Costs) *time.Duration { return &c.Enqueue },
	func(c *Costs) *time.Duration { return &c.Push },
	func(c *Costs) *time.Duration { return &c.Take },
	func(c *Costs) *time.Duration { return &c.HandOff },
	func(c *Costs) *time.Duration { return &c.Tick },
	func(c *Costs) *time.Duration { return &c.SysmonEvery },
	func(c *Costs) *time.Duration { return &c.Sysmon },
}

// herdWorkers are the workers of the calibration's largest pools: the
// herds of sleeping workers a broadcast wakes.
const herdWorkers = 8

// CalibrationProcs is the least GOMAXPROCS Calibrate wants: a P for each
// worker of its largest pools and one for the enqueuer.
const CalibrationProcs = herdWorkers + 1

// calibration measures Costs on Native pools of one mutex kind.
type calibration struct{ mutex workerpool.MutexKind }

// options is a Native pool of the calibration's mutex kind.
func (cal calibration) options(workers int, wake workerpool.WakePolicy, gated bool) workerpool.Options {
	return workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: cal.mutex, Wake: wake, Gated: gated}
}

// once measures Costs with microbenchmarks of workerpool's Native
// backend (SGen's pool in C on pthreads) on this host: one-way wakes of a sleeping worker on an
// idle core (WakeToRun); single enqueues into a gated pool that wakes
// nobody (Enqueue), and into gated Broadcast pools of one and eight
// sleeping workers on the enqueuer's own CPU (the waker's CPU per wake
// call and per thread woken) and of one on another, idle CPU (WakeIdle);
// 65-job rounds into a pool of eight on the enqueuer's CPU (the CPU a
// futile wake-up costs a worker, read from the workers' own CPU clocks);
// batches (Push, Take); and, for PI, rounds of synthetic jobs on one CPU
// beside the same rounds on a normal mutex (HandOff, measureHandOff). The
// wake calls and futile wake-ups are measured with the threads pinned,
// because what a wake costs depends on where the woken thread goes: onto
// the waker's own run queue it costs the waker about 2 µs per thread on
// the project's virtual machine; onto an idle CPU it also takes an
// inter-processor interrupt, 4–11 µs more there.
func (cal calibration) once(ctx context.Context) (Costs, error) {
	var c Costs
	var err error
	if c.Push, c.Take, err = cal.measureQueue(ctx); err != nil {
		return c, err
	}
	cpus, err := allowedCPUs()
	if err != nil {
		return c, err
	}
	own := cpus[0]
	if c.Enqueue, err = cal.measureEnqueueCall(ctx, own); err != nil {
		return c, err
	}
	var w2r []time.Duration
	if len(cpus) > 1 { // else no wake here goes to another CPU: WakeToRun and WakeIdle stay 0
		if w2r, err = cal.measureWakeToRun(ctx, own, cpus[1]); err != nil {
			return c, err
		}
	}
	one, err := cal.measureWakeCall(ctx, 1, own, own)
	if err != nil {
		return c, err
	}
	eight, err := cal.measureWakeCall(ctx, herdWorkers, own, own)
	if err != nil {
		return c, err
	}
	clock := clockOverhead() // in each single enqueue measured, not in the calls
	c.WakeCall, c.WakePer = wakeCosts(c.Enqueue+clock, one, eight)
	if len(cpus) > 1 {
		remote, err := cal.measureWakeCall(ctx, 1, own, cpus[1])
		if err != nil {
			return c, err
		}
		c.WakeIdle = max(0, remote.cpu-clock-c.Enqueue-time.Duration(remote.calls)*(c.WakeCall+c.WakePer))
		// The woken thread became runnable when the call had woken it.
		// Every sample is kept, as its quantiles: a waiter loses the
		// mutex to a holder that re-takes it within its wake-to-run, and
		// how often turns on the distribution's lower part, not on its
		// median.
		for i, d := range w2r {
			w2r[i] = max(0, d-c.WakeCall-c.WakePer)
		}
		c.WakeToRunDist = Quantiles(w2r)
		c.WakeToRun = median(w2r)
	}
	if c.Futile, err = cal.measureFutile(ctx, herdWorkers, own); err != nil {
		return c, err
	}
	if c.HandOff, err = cal.measureHandOff(ctx, c, own); err != nil {
		return c, err
	}
	c.Tick = tickPeriod()
	if c.SysmonEvery, c.Sysmon, err = cal.measureRuntime(ctx, own); err != nil {
		return c, err
	}
	return c, nil
}

// tickPeriod is the scheduler tick's period, 1/HZ: the resolution of the
// coarse clock, which advances once a tick (0 where the clock says none).
func tickPeriod() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_MONOTONIC_COARSE, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// wakeCall is an enqueue that woke sleeping workers: its caller's median
// CPU, and the futex wake calls it made (those trials only). A worker
// woken onto the enqueuer's own CPU preempts it while it still holds the
// queue lock and goes to sleep on that lock, so the unlock makes a second
// call that wakes it again: most trials of a pool on the enqueuer's CPU
// make two calls, of one on another CPU one.
type wakeCall struct {
	cpu   time.Duration
	calls int
}

// wakeCosts solves one and eight, single enqueues (enqueue each, its push
// included) that woke one and eight sleepers, for the cost of a wake call
// and per thread woken. A call beyond the first is the unlock's, and
// wakes one thread:
//
//	one.cpu   − enqueue = one.calls·WakeCall + one.calls·WakePer
//	eight.cpu − enqueue = eight.calls·WakeCall + (7 + eight.calls)·WakePer
func wakeCosts(enqueue time.Duration, one, eight wakeCall) (call, per time.Duration) {
	a1, a8 := float64(one.calls), float64(eight.calls)
	y1, y8 := float64(one.cpu-enqueue), float64(eight.cpu-enqueue)
	p := (a1*y8 - a8*y1) / (7 * a1)
	return max(0, time.Duration(y1/a1-p)), max(0, time.Duration(p))
}

// preemptions counts the calling thread's involuntary context switches.
func preemptions() int {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return int(ru.Nivcsw)
}

// nop is the job the microbenchmarks queue.
var nop = jobs.Func(func(int) {})

// threadCPU is the calling thread's CPU time, to the nanosecond.
//
// It reads CLOCK_THREAD_CPUTIME_ID, not getrusage(RUSAGE_THREAD): Linux
// brings a running thread's account up to date only at scheduler events
// (a tick, a switch, a wake-up on its CPU), and getrusage reads the
// account as it stands, while the clock adds the time since the last
// update. Around one enqueue after a sleep, getrusage charged the enqueue
// with whatever the thread had run since it woke (the runtime's return
// from the sleep included), or with nothing at all.
func threadCPU() time.Duration { return cpuClock(unix.CLOCK_THREAD_CPUTIME_ID) }

func cpuClock(id int32) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// idleGap is the pause between trials: long enough for the workers to be
// asleep and the other cores idle again, as between two collections.
const idleGap = time.Millisecond

// median sorts ds and returns their middle value (the upper of the two
// middle ones for an even count).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// measureWakeToRun is the time from the start of a StartBatch of one job
// on CPU self that wakes one sleeping Native worker on the idle CPU to,
// to the start of the job on that worker: every trial's, in the order
// measured. StartBatch wakes after its unlock, so the woken worker finds
// the mutex free: this is the kernel's wake-to-run alone, which the
// simulation charges at every wake, a lock hand-off's among them. An
// enqueue that signals under the mutex, as the first calibration did,
// lets the worker wake while the mutex is still held and sleep on it
// again; with the PI mutex that second wake (FUTEX_LOCK_PI, then the
// hand-off) put the top twentieth of the trials at 0.90–1.16 ms on the
// 2-core VM, against 0.17–0.28 ms with the wake after the unlock, and the
// simulation, which makes that hand-off itself, counted it twice.
func (cal calibration) measureWakeToRun(ctx context.Context, self, to int) (lat []time.Duration, err error) {
	p, unpin, err := pinnedPool(cal.options(1, workerpool.Broadcast, true), self, to)
	if err != nil {
		return nil, err
	}
	defer func() {
		if e := unpin(); err == nil {
			err = e
		}
	}()
	var started time.Time
	one := []jobs.Job{jobs.Func(func(int) { started = time.Now() })}
	const trials = 300
	lat = make([]time.Duration, 0, trials)
	for range trials {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		time.Sleep(idleGap)
		t0 := time.Now()
		if err := p.StartBatch(one); err != nil {
			return nil, err
		}
		if err := p.Join(ctx); err != nil {
			return nil, err
		}
		lat = append(lat, started.Sub(t0)) // Join orders the job's write before this read
	}
	return lat, nil
}

// measureWakeCall is the caller's CPU, on CPU self, for one enqueue into
// a gated Broadcast pool whose workers all sleep, pinned to CPU to: the
// push and the wake calls, as the median over the trials that made the
// most common number of calls. An enqueue that a woken worker preempted
// (an involuntary context switch of the enqueuer's thread) made two: the
// worker then slept on the lock the enqueuer held, and the unlock woke it.
func (cal calibration) measureWakeCall(ctx context.Context, workers, self, to int) (wakeCall, error) {
	const trials = 150
	byCalls := map[int][]time.Duration{}
	err := cal.gatedRounds(ctx, workers, trials, self, to, func(p *workerpool.Pool) error {
		before, switches := p.Stats(), preemptions()
		self := threadCPU()
		if err := p.Enqueue(nop); err != nil {
			return err
		}
		spent := threadCPU() - self
		calls := 1 + min(1, preemptions()-switches)
		if p.Stats().Sub(before).EnqueueWakeCalls > 0 { // the workers sleep after idleGap: the broadcast woke them
			byCalls[calls] = append(byCalls[calls], spent)
		}
		return nil
	})
	if err != nil {
		return wakeCall{}, err
	}
	var most wakeCall
	for n, cpu := range byCalls {
		if len(cpu) > len(byCalls[most.calls]) || len(cpu) == len(byCalls[most.calls]) && n < most.calls {
			most = wakeCall{cpu: median(cpu), calls: n}
		}
	}
	if most.calls == 0 {
		return wakeCall{}, fmt.Errorf("pausemodel: no enqueue into %d sleeping workers made a wake call", workers)
	}
	return most, nil
}

// measureEnqueueCall is the caller's median CPU, on CPU cpu, for one
// enqueue into a gated Targeted pool, which wakes nobody while gated: the
// lock round trip and the push.
func (cal calibration) measureEnqueueCall(ctx context.Context, cpu int) (d time.Duration, err error) {
	p, unpin, err := pinnedPool(cal.options(1, workerpool.Targeted, true), cpu, cpu)
	if err != nil {
		return 0, err
	}
	defer func() {
		if e := unpin(); err == nil {
			err = e
		}
	}()
	const rounds, perRound = 40, 64
	spent := make([]time.Duration, 0, rounds)
	for range rounds {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		before := threadCPU() // around all of a round's calls: the clock costs more than a call
		for range perRound {
			if err := p.Enqueue(nop); err != nil {
				return 0, err
			}
		}
		spent = append(spent, (threadCPU()-before)/perRound)
		p.Start()
		if err := p.Join(ctx); err != nil {
			return 0, err
		}
	}
	return median(spent), nil
}

// clockOverhead is the median of what two back-to-back reads of the
// thread's CPU clock (a system call, not the vDSO) show: what every
// measurement of one call by threadCPU includes beside the call.
func clockOverhead() time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ds := make([]time.Duration, 201)
	for i := range ds {
		before := threadCPU()
		ds[i] = threadCPU() - before
	}
	return median(ds)
}

// measureFutile is the CPU time a futile wake-up costs the woken
// workers: rounds of 65 per-job enqueues into a gated Broadcast pool of
// sleeping workers, everything on CPU cpu, the CPU the workers' threads
// ran (their own clocks: not the process's, which counts the Go runtime's
// threads too, and they ran more CPU than the workers in such rounds)
// divided by the futile wake-ups the pool counted. Each round waits for
// the workers to be back asleep before it reads their clocks and starts
// the jobs.
func (cal calibration) measureFutile(ctx context.Context, workers, cpu int) (time.Duration, error) {
	var workersCPU time.Duration
	var futile uint64
	err := cal.gatedRounds(ctx, workers, 40, cpu, cpu, func(p *workerpool.Pool) error {
		ids := p.ThreadIDs()
		before, clocks := p.Stats(), threadsCPU(ids)
		for range 65 {
			if err := p.Enqueue(nop); err != nil {
				return err
			}
		}
		time.Sleep(idleGap)
		workersCPU += threadsCPU(ids) - clocks
		futile += p.Stats().Sub(before).FutileWakeups
		return nil
	})
	if err != nil || futile == 0 {
		return 0, err
	}
	return workersCPU / time.Duration(futile), nil
}

// gatedRounds runs rounds on a gated Broadcast pool of sleeping Native
// workers pinned to CPU to: each waits idleGap, calls enqueue with the
// gate closed, then opens the gate and joins. The calling goroutine is
// locked to its thread, pinned to CPU self, meanwhile, so that threadCPU
// is the enqueuer's alone.
func (cal calibration) gatedRounds(ctx context.Context, workers, rounds, self, to int, enqueue func(*workerpool.Pool) error) (err error) {
	p, unpin, err := pinnedPool(cal.options(workers, workerpool.Broadcast, true), self, to)
	if err != nil {
		return err
	}
	defer func() {
		if e := unpin(); err == nil {
			err = e
		}
	}()
	for range rounds {
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(idleGap)
		if err := enqueue(p); err != nil {
			return err
		}
		p.Start()
		if err := p.Join(ctx); err != nil {
			return err
		}
	}
	return nil
}

// measureQueue measures Push (the caller's CPU per job of a batch queued
// into a gated pool) and Take (a worker's CPU per job: the native loop's
// one mutex hold per job, which retires a job and takes the next, the
// release around the job, and the callback into Go, for jobs that do
// nothing; the pool counts one grab per job).
func (cal calibration) measureQueue(ctx context.Context) (push, take time.Duration, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := workerpool.New(cal.options(1, workerpool.Targeted, true))
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	const n, rounds = 4096, 20
	batch := make([]jobs.Job, n)
	for i := range batch {
		batch[i] = nop
	}
	var callerCPU, workerCPU time.Duration
	var grabs uint64
	for range rounds {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		self := threadCPU()
		if err := p.EnqueueBatch(batch); err != nil {
			return 0, 0, err
		}
		callerCPU += threadCPU() - self
		ids := p.ThreadIDs()
		before, stats := threadsCPU(ids), p.Stats()
		p.Start()
		if err := p.Join(ctx); err != nil {
			return 0, 0, err
		}
		workerCPU += threadsCPU(ids) - before
		grabs += p.Stats().Sub(stats).Grabs
	}
	return callerCPU / (n * rounds), workerCPU / time.Duration(max(1, grabs)), nil
}

// String shows the costs as a calibration line.
func (c Costs) String() string {
	dist := ""
	if c.WakeToRunDist != ([QuantileCount]time.Duration{}) {
		dist = fmt.Sprintf(" (quantiles %v–%v)", c.WakeToRunDist[0], c.WakeToRunDist[QuantileCount-1])
	}
	handOff := ""
	if c.HandOff != 0 {
		handOff = fmt.Sprintf(", PI hand-off %v", c.HandOff)
	}
	tick := ""
	if c.Tick != 0 {
		tick = fmt.Sprintf(", tick %v", c.Tick)
	}
	sysmon := ""
	if c.SysmonEvery != 0 {
		sysmon = fmt.Sprintf(", the Go runtime %v per sysmon look every %v", c.Sysmon, c.SysmonEvery)
	}
	return fmt.Sprintf("wake-to-run %v%s, wake call %v + %v per thread woken + %v per idle CPU woken, futile wake-up %v, enqueue call %v, push %v, take %v%s%s%s",
		c.WakeToRun, dist, c.WakeCall, c.WakePer, c.WakeIdle, c.Futile, c.Enqueue, c.Push, c.Take, handOff, tick, sysmon)
}

// A CostRange holds, for each cost, the lowest (Lo) and the highest (Hi)
// of several calibration runs: how far the runs disagree, which is the
// spread a prediction for a host's missing core counts has to cover.
type CostRange struct{ Lo, Hi Costs }

// RangeOf returns the range of each cost over runs; it panics if runs is
// empty, as there is no range of nothing.
func RangeOf(runs []Costs) CostRange {
	r := CostRange{Lo: runs[0], Hi: runs[0]}
	for _, f := range costFields {
		for j := range runs {
			*f(&r.Lo), *f(&r.Hi) = min(*f(&r.Lo), *f(&runs[j])), max(*f(&r.Hi), *f(&runs[j]))
		}
	}
	return r
}

// String shows each cost's range, "wake-to-run 20µs–30µs, wake call …",
// in Costs' field order; the PI hand-off and the tick only where a run
// measured one.
func (r CostRange) String() string {
	names := []string{"wake-to-run", "wake call", "per thread woken", "per idle CPU woken", "futile wake-up", "enqueue call", "push", "take", "PI hand-off", "tick",
		"sysmon's look every", "the Go runtime per look"}
	parts := make([]string, 0, len(costFields))
	for i, f := range costFields {
		if i >= len(names)-4 && *f(&r.Hi) == 0 { // measured only where they apply: PI, a tick, sysmon's looks
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %v–%v", names[i], *f(&r.Lo), *f(&r.Hi)))
	}
	return strings.Join(parts, ", ")
}
