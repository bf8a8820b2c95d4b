package pausemodel

import (
	"fmt"
	"slices"
	"time"

	"github.com/gcbench/gcbench/gcsim"
)

// The kernel's part of the model: wake-to-run drawn from a measured
// distribution, the collector's preemption by the workers it wakes, and
// where a woken worker is placed. Simulate follows the kernel's own rules
// (see the package documentation) unless a Shape's Kernel says what the
// kernel measurably did in a run.

// QuantileCount is the length of Costs.WakeToRunDist.
const QuantileCount = 20

// Preemption says when a worker woken onto the collector's CPU preempts
// the collector.
type Preemption int

const (
	// PreemptEveryWake: every worker woken onto the collector's CPU runs
	// before the collector resumes (its current burst ends first): the
	// kernel's wakeup preemption of a thread that has run long by one that
	// has slept (kernel/sched/fair.c, check_preempt_wakeup_fair). This is
	// the model's own rule, and the upper bound of check 3.
	PreemptEveryWake Preemption = iota
	// PreemptNever: a worker woken onto the collector's CPU queues behind
	// it and runs only when the collector blocks (on the mutex, in Join)
	// or another core takes it: the lower bound of check 3.
	PreemptNever
	// PreemptMeasured: the collector is preempted Kernel.Preemptions times
	// per collection, spread evenly over the work condition's broadcasts;
	// between them the workers woken onto its CPU queue behind it.
	PreemptMeasured
)

// String names the rule as docs and tables do.
func (p Preemption) String() string {
	switch p {
	case PreemptEveryWake:
		return "preemption on every wake"
	case PreemptNever:
		return "no wake-up preemption"
	case PreemptMeasured:
		return "measured preemptions"
	}
	return fmt.Sprintf("Preemption(%d)", int(p))
}

// Balance says when a core that runs out of threads takes one waiting on
// another core.
type Balance int

const (
	// BalanceNewlyIdle: at once (newly-idle balancing, sched_balance_newidle
	// in kernel/sched/fair.c). The model's own rule.
	BalanceNewlyIdle Balance = iota
	// BalanceAtTick: only at the next tick. Since Linux 6.18.5 (and 7.0)
	// the newly-idle balance runs only as often as it has lately
	// succeeded (NI_RANDOM, "sched/fair: Proportional newidle balance"),
	// so a core going idle can leave a thread queued elsewhere until the
	// busy core's tick kicks a balance.
	BalanceAtTick
)

// String names the rule as docs and tables do.
func (b Balance) String() string {
	switch b {
	case BalanceNewlyIdle:
		return "newly-idle balance"
	case BalanceAtTick:
		return "balance at the tick"
	}
	return fmt.Sprintf("Balance(%d)", int(b))
}

// Kernel is what the kernel did in a measured collection, given to the
// model instead of its own rules; its zero value is the model's own rules
// (PreemptEveryWake, placement by the kernel's rule, every worker asleep
// on the work condition at the start).
type Kernel struct {
	Preemption Preemption
	// Preemptions is the collector's involuntary context switches per
	// collection (PreemptMeasured only).
	Preemptions float64
	// Placed says OnCollectorCPU holds: the share (0 to 1) of workers'
	// wake-ups the kernel placed on the collector's CPU
	// (select_task_rq_fair's wake-affine choice) rather than elsewhere (an
	// idle sibling, or the worker's own last CPU). The choice is spread
	// evenly over the wake-ups.
	Placed         bool
	OnCollectorCPU float64
	// Balance says when an idle core takes a thread waiting in another
	// core's run queue.
	Balance Balance
	// AsleepOnMutex is how many workers sleep on the pool's mutex, not on
	// the work condition, when a collection starts: a thread asleep on the
	// mutex is not a condition waiter, so the broadcasts do not wake it.
	AsleepOnMutex int
	// Sysmon says the Go runtime's sysmon looks every Costs.SysmonEvery
	// through the whole collection, its runtime's threads taking
	// Costs.Sysmon of a core at each look (runtime.go): the most the
	// runtime takes, sysmon at its shortest sleep, and check 3's upper
	// bound. Without it the runtime takes nothing, as when sysmon sleeps
	// long: the model's own rule.
	Sysmon bool
}

// check returns an error wrapping ErrShape for a Kernel no machine has.
func (k Kernel) check(workers int) error {
	switch {
	case k.Preemption < PreemptEveryWake || k.Preemption > PreemptMeasured:
		return fmt.Errorf("%w: %v", ErrShape, k.Preemption)
	case k.Balance < BalanceNewlyIdle || k.Balance > BalanceAtTick:
		return fmt.Errorf("%w: %v", ErrShape, k.Balance)
	case k.Preemptions < 0 || k.OnCollectorCPU < 0 || k.OnCollectorCPU > 1 || k.AsleepOnMutex < 0 || k.AsleepOnMutex > workers:
		return fmt.Errorf("%w: kernel observables %+v for %d workers", ErrShape, k, workers)
	}
	return nil
}

// Quantiles returns the QuantileCount mid-quantiles of samples (the
// (i+½)/QuantileCount quantile for each i): the distribution
// Costs.WakeToRunDist holds. samples is sorted in place; none gives zeros.
func Quantiles(samples []time.Duration) [QuantileCount]time.Duration {
	var q [QuantileCount]time.Duration
	if len(samples) == 0 {
		return q
	}
	slices.Sort(samples)
	for i := range q {
		q[i] = samples[min(len(samples)-1, (2*i+1)*len(samples)/(2*QuantileCount))]
	}
	return q
}

// wakeToRun is the latency of the next wake onto an idle core: the next
// draw from WakeToRunDist if the calibration measured it, else WakeToRun.
// The draws go through the quantiles in a fixed scrambled order (7 is
// coprime with QuantileCount), so that the simulation stays deterministic
// and every run of QuantileCount wakes sees the whole distribution.
func (m *machine) wakeToRun() time.Duration {
	if m.c.WakeToRunDist == ([QuantileCount]time.Duration{}) {
		return m.c.WakeToRun
	}
	d := m.c.WakeToRunDist[(m.draws*7)%QuantileCount]
	m.draws++
	return d
}

// broadcastsPer is the work condition's broadcasts per collection of
// mode with j jobs: one per enqueue call and one at Start (StartBatch:
// one).
func broadcastsPer(mode gcsim.Mode, j int) int {
	switch mode {
	case gcsim.Batch:
		return 2
	case gcsim.StartBatch:
		return 1
	}
	return j + 1
}

// creditPreemption accrues, at a broadcast, the measured preemptions'
// share of it.
func (m *machine) creditPreemption() {
	if m.s.Kernel.Preemption == PreemptMeasured {
		m.credit += m.s.Kernel.Preemptions / float64(broadcastsPer(m.s.Mode, len(m.s.Jobs)))
	}
}

// mayPreempt reports whether a worker woken now onto the running
// collector's CPU preempts it, and spends a measured preemption if so.
// Workers woken while the collector already yields go with the first.
func (m *machine) mayPreempt() bool {
	switch {
	case m.yield:
		return true
	case m.s.Kernel.Preemption == PreemptEveryWake:
		return true
	case m.s.Kernel.Preemption == PreemptMeasured && m.credit >= 1:
		m.credit--
		return true
	}
	return false
}

// spendPreemption spends a measured preemption at the end of one of the
// collector's bursts, if one is due (PreemptMeasured): the kernel
// preempts a running thread at a wake-up or at a tick, and the count
// measured is of both.
func (m *machine) spendPreemption() bool {
	if m.s.Kernel.Preemption != PreemptMeasured || m.credit < 1 {
		return false
	}
	m.credit--
	return true
}

// measuredPlace is the placement of a worker's wake-up when the Kernel
// gives the measured share on the collector's CPU: with acc, the share's
// running sum, the wake-up goes to the collector's CPU when acc reaches a
// whole wake-up, and elsewhere otherwise — the worker's own last core if
// idle and not the collector's, else an idle core other than the
// collector's, else the least loaded of the others. With one core every
// wake-up is on the collector's. It returns the core, whether it is idle,
// and acc after this wake-up.
func (m *machine) measuredPlace(t *thread, taken []*core, acc float64) (*core, bool, float64) {
	cc := m.collector.core
	free := func(c *core) bool { return c.idle() && !slices.Contains(taken, c) }
	acc += m.s.Kernel.OnCollectorCPU
	if acc >= 1-1e-9 || len(m.cores) == 1 {
		if acc >= 1-1e-9 {
			acc--
		}
		return cc, free(cc), acc
	}
	if t.core != cc && free(t.core) {
		return t.core, true, acc
	}
	if i := slices.IndexFunc(m.cores, func(c *core) bool { return c != cc && free(c) }); i >= 0 {
		return m.cores[i], true, acc
	}
	best := t.core
	if best == cc {
		best = nil
	}
	for _, c := range m.cores {
		if c != cc && (best == nil || m.load(c, taken) < m.load(best, taken)) {
			best = c
		}
	}
	return best, false, acc
}

// load is a core's running thread (or one on its way, or one a wake call
// in progress sends there) and its queue.
func (m *machine) load(c *core, taken []*core) int {
	n := len(c.queue)
	if c.running != nil || c.reserved || slices.Contains(taken, c) {
		n++
	}
	return n
}

// startAsleepOnMutex puts Kernel.AsleepOnMutex of the workers asleep on
// the mutex (the longest waiting first) when a collection starts: the
// mutex is marked contended (normal) or has waiters (PI), so the
// collector's first unlock wakes one, which then looks for work as a
// woken worker does.
func (m *machine) startAsleepOnMutex() {
	n := min(m.s.Kernel.AsleepOnMutex, len(m.parked))
	if n == 0 {
		return
	}
	for _, w := range m.parked[:n] {
		m.lockWaiters = append(m.lockWaiters, pending{t: w, then: func() {
			w.justWoke = true
			m.look(w)
		}})
	}
	m.parked = slices.Delete(m.parked, 0, n)
	m.contended = true
}

// WithWakeToRun returns c with wake-to-run's median set to d and its
// distribution scaled to match (the same shape about the new median); a
// c without a distribution, or with a zero median, gets none, every wake
// then taking d. The many-core scenarios move wake-to-run this way.
func (c Costs) WithWakeToRun(d time.Duration) Costs {
	if c.WakeToRun <= 0 || c.WakeToRunDist == ([QuantileCount]time.Duration{}) {
		c.WakeToRun, c.WakeToRunDist = d, [QuantileCount]time.Duration{}
		return c
	}
	f := float64(d) / float64(c.WakeToRun)
	for i, q := range c.WakeToRunDist {
		c.WakeToRunDist[i] = time.Duration(float64(q) * f)
	}
	c.WakeToRun = d
	return c
}
