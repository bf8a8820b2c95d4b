package pausemodel

import (
	"errors"
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// TestQuantilesAreMidQuantiles: twenty mid-quantiles of 0..99 µs are
// 2, 7, 12, … 97 µs; no samples give zeros.
func TestQuantilesAreMidQuantiles(t *testing.T) {
	var s []time.Duration
	for i := 99; i >= 0; i-- {
		s = append(s, time.Duration(i)*us)
	}
	q := Quantiles(s)
	for i, d := range q {
		if want := time.Duration(5*i+2) * us; d != want {
			t.Errorf("quantile %d: %v, want %v", i, d, want)
		}
	}
	if Quantiles(nil) != ([QuantileCount]time.Duration{}) {
		t.Error("no samples: want zeros")
	}
}

// TestBargingFollowsTheWakeToRunDistribution: on two cores the collector
// re-takes the normal mutex every few µs; a worker woken on the other core
// gets it only when its wake-to-run is shorter. With the median alone
// (20 µs, far above the re-lock interval) the waiters always lose; with
// a distribution of the same median whose lower quarter is 1 µs, some
// win, each win a futile wake-up: more futile wake-ups than the median
// alone gives, fewer than the whole herd.
func TestBargingFollowsTheWakeToRunDistribution(t *testing.T) {
	s := Shape{Cores: 2, Workers: 8, Mode: gcsim.PerJob, Mutex: workerpool.MutexNormal, Jobs: jobsOf(65, 30*us),
		Kernel: Kernel{Placed: true, Preemption: PreemptNever}}
	c := hostLike
	c.WakeToRun = 20 * us
	flat := mustSimulate(t, c, s)
	for i := range c.WakeToRunDist {
		c.WakeToRunDist[i] = 20 * us
		if i < QuantileCount/4 {
			c.WakeToRunDist[i] = us
		}
	}
	spread := mustSimulate(t, c, s)
	if spread.FutileWakeups <= flat.FutileWakeups || spread.FutileWakeups >= 8*65 {
		t.Errorf("futile wake-ups: %d with the median alone, %d with the distribution; want more with it, below the herd of 520",
			flat.FutileWakeups, spread.FutileWakeups)
	}
}

// TestPreemptionBoundsTheOneCoreHerd: on one core the herd is made by the
// workers preempting the collector. With preemption on every wake it is
// whole (520 to 528 at 8 workers and 65 jobs); with none, the woken
// workers queue behind the collector and run only once it sleeps in
// Join, with the gate open: no futile wake-up while it enqueues; with a
// measured 30 preemptions per collection, in between; and the pause
// bounds order: no preemption ≤ measured ≤ every wake.
func TestPreemptionBoundsTheOneCoreHerd(t *testing.T) {
	for _, k := range MutexKinds() {
		s := Shape{Cores: 1, Workers: 8, Mode: gcsim.PerJob, Mutex: k, Jobs: jobsOf(65, 30*us)}
		every := mustSimulate(t, hostLike, s)
		s.Kernel = Kernel{Preemption: PreemptNever}
		never := mustSimulate(t, hostLike, s)
		s.Kernel = Kernel{Preemption: PreemptMeasured, Preemptions: 30}
		some := mustSimulate(t, hostLike, s)
		if every.FutileWakeups < 520 || never.FutileWakeups > 8 || some.FutileWakeups <= never.FutileWakeups || some.FutileWakeups >= every.FutileWakeups {
			t.Errorf("%v: futile wake-ups every wake %d, measured %d, never %d", k, every.FutileWakeups, some.FutileWakeups, never.FutileWakeups)
		}
		if never.Preemptions != 0 || some.Preemptions > 30 {
			t.Errorf("%v: preemptions never %d, measured %d (of 30)", k, never.Preemptions, some.Preemptions)
		}
		if !(never.Dispatch <= some.Dispatch && some.Dispatch <= every.Dispatch) {
			t.Errorf("%v: dispatch never %v, measured %v, every wake %v: want them in that order", k, never.Dispatch, some.Dispatch, every.Dispatch)
		}
	}
}

// TestMeasuredPlacementSendsWakeupsToTheCollectorsCPU: with every
// wake-up placed on the collector's CPU and no preemption, two cores
// behave as one core without preemption: no futile wake-up while the gate
// is closed; with none placed there, the workers go to the other core.
func TestMeasuredPlacementSendsWakeupsToTheCollectorsCPU(t *testing.T) {
	s := Shape{Cores: 2, Workers: 4, Mode: gcsim.PerJob, Mutex: workerpool.MutexNormal, Jobs: jobsOf(33, 30*us),
		Kernel: Kernel{Preemption: PreemptNever, Placed: true, OnCollectorCPU: 1}}
	on := mustSimulate(t, hostLike, s)
	if on.FutileWakeups > 4 {
		t.Errorf("all on the collector's CPU, never preempting: %d futile wake-ups, want at most 4", on.FutileWakeups)
	}
	s.Kernel.OnCollectorCPU = 0
	off := mustSimulate(t, hostLike, s)
	if off.FutileWakeups <= on.FutileWakeups {
		t.Errorf("none on the collector's CPU: %d futile wake-ups, want more than %d", off.FutileWakeups, on.FutileWakeups)
	}
}

// TestWorkersAsleepOnTheMutexAreNotWokenByBroadcasts: a worker asleep on
// the mutex at the start is no condition waiter: on one core with
// preemption on every wake the herd is the others' (7 per enqueue) until
// it gets the lock and goes back to the condition.
func TestWorkersAsleepOnTheMutexAreNotWokenByBroadcasts(t *testing.T) {
	s := Shape{Cores: 1, Workers: 8, Mode: gcsim.PerJob, Mutex: workerpool.MutexNormal, Jobs: jobsOf(65, 30*us)}
	all := mustSimulate(t, hostLike, s)
	s.Kernel.AsleepOnMutex = 8
	some := mustSimulate(t, hostLike, s)
	if some.FutileWakeups > all.FutileWakeups {
		t.Errorf("futile wake-ups: %d with every worker on the condition, %d with all on the mutex first", all.FutileWakeups, some.FutileWakeups)
	}
}

// TestKernelRejectsImpossibleObservables.
func TestKernelRejectsImpossibleObservables(t *testing.T) {
	for _, k := range []Kernel{{Preemptions: -1}, {OnCollectorCPU: 1.5}, {AsleepOnMutex: 9}, {Preemption: 7}, {Balance: 2}, {Balance: -1}} {
		_, err := Simulate(hostLike, Shape{Cores: 2, Workers: 8, Mode: gcsim.PerJob, Mutex: workerpool.MutexNormal, Jobs: jobsOf(3, us), Kernel: k})
		if !errors.Is(err, ErrShape) {
			t.Errorf("%+v: got %v, want ErrShape", k, err)
		}
	}
}

func TestWithWakeToRunScalesTheDistribution(t *testing.T) {
	c := Costs{WakeToRun: 20 * us}
	for i := range c.WakeToRunDist {
		c.WakeToRunDist[i] = time.Duration(i+1) * 2 * us
	}
	got := c.WithWakeToRun(10 * us)
	if got.WakeToRun != 10*us || got.WakeToRunDist[0] != us || got.WakeToRunDist[QuantileCount-1] != 20*us {
		t.Errorf("got %v, %v", got.WakeToRun, got.WakeToRunDist)
	}
	if flat := (Costs{WakeToRun: 20 * us}).WithWakeToRun(5 * us); flat.WakeToRun != 5*us || flat.WakeToRunDist != ([QuantileCount]time.Duration{}) {
		t.Errorf("without a distribution: got %v, %v", flat.WakeToRun, flat.WakeToRunDist)
	}
}

// TestBalanceAtTickLeavesAWorkerQueued: two workers on two cores, as in
// TestWorkerTimesOfTwoWorkers. With the newly-idle balance the core the
// collector leaves for Join takes the worker queued behind the other at
// once; at the tick it does not, so the two share a core until a tick
// falls inside the collection, and wait for it far longer. Without a tick
// period the rule is the newly-idle one.
func TestBalanceAtTickLeavesAWorkerQueued(t *testing.T) {
	c := hostLike
	c.Tick = 4 * time.Millisecond
	s := Shape{Cores: 2, Workers: 2, Mode: gcsim.Batch, Mutex: workerpool.MutexNormal}
	series := make([][]time.Duration, 20)
	for i := range series {
		series[i] = jobsOf(17, 150*us)
	}
	simulate := func(c Costs, b Balance) Result {
		t.Helper()
		s.Kernel.Balance = b
		r, err := SimulateSeries(c, s, series)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	now, tick := simulate(c, BalanceNewlyIdle), simulate(c, BalanceAtTick)
	if tick.WorkerWait < 10*now.WorkerWait || tick.Dispatch <= now.Dispatch {
		t.Errorf("workers' wait %v and dispatch %v at the tick, %v and %v at once; want far more wait and a longer dispatch",
			tick.WorkerWait, tick.Dispatch, now.WorkerWait, now.Dispatch)
	}
	if d := tick.WorkerCPU - now.WorkerCPU; d < -now.WorkerCPU/50 || d > now.WorkerCPU/50 {
		t.Errorf("workers' CPU %v at the tick, %v at once; want the same work, give or take a look at the queue", tick.WorkerCPU, now.WorkerCPU)
	}
	c.Tick = 0
	if got := simulate(c, BalanceAtTick); got != simulate(c, BalanceNewlyIdle) {
		t.Errorf("without a tick: %+v, want the newly-idle rule's result", got)
	}
}

// TestTickPeriodIsAJiffy: the coarse clock's resolution is 1/HZ, which
// Linux builds at 100 to 1000.
func TestTickPeriodIsAJiffy(t *testing.T) {
	if d := tickPeriod(); d < time.Millisecond || d > 10*time.Millisecond {
		t.Errorf("tickPeriod() = %v, want 1 ms to 10 ms", d)
	}
}
