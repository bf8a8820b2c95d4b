package pausemodel

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

const us = time.Microsecond

func jobsOf(n int, d time.Duration) []time.Duration {
	js := make([]time.Duration, n)
	for i := range js {
		js[i] = d
	}
	return js
}

func mustSimulate(t *testing.T, c Costs, s Shape) Result {
	t.Helper()
	r, err := Simulate(c, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// perJobAndBatch simulates shape once per protocol.
func perJobAndBatch(t *testing.T, c Costs, shape Shape) (per, batch Result) {
	t.Helper()
	shape.Protocol = PerJob
	per = mustSimulate(t, c, shape)
	shape.Protocol = Batch
	return per, mustSimulate(t, c, shape)
}

// TestOneJobByHand: one worker, one job, only wake latency and the job
// cost: the batch wakes the worker for nothing (gate closed) while the
// collector opens the gate; the worker, awake 10 µs later, finds the gate
// open, runs the job and wakes the collector, who returns 10 µs later.
func TestOneJobByHand(t *testing.T) {
	c := Costs{WakeToRun: 10 * us}
	r := mustSimulate(t, c, Shape{Cores: 4, Workers: 1, Protocol: Batch, Wake: Broadcast, Jobs: jobsOf(1, 100*us)})
	want := Result{Dispatch: 120 * us, ToFirstJob: 10 * us, JobSpan: 100 * us, JoinLatency: 10 * us, Wakes: 2}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
}

// TestStartBatchWakesNobodyBehindTheGate: four sleeping workers on the
// collector's one core, one job each. Batch's first wake comes behind the
// closed gate, under the lock: a woken worker preempts the collector,
// sleeps on the lock, is woken by its release and takes the lock before
// Start does, for nothing. StartBatch opens the gate before its one wake,
// so the workers it wakes find jobs (on one core, those that run after
// the first has taken every job find none: those futile wake-ups both
// protocols have). (On idle cores the woken workers come up after the
// collector has barged back in for Start, and find the gate open.)
func TestStartBatchWakesNobodyBehindTheGate(t *testing.T) {
	shape := Shape{Cores: 1, Workers: 4, Wake: Broadcast, Jobs: jobsOf(4, 100*us)}
	shape.Protocol = Batch
	batch := mustSimulate(t, hostLike, shape)
	shape.Protocol = StartBatch
	start := mustSimulate(t, hostLike, shape)
	if batch.FutileWakeups <= start.FutileWakeups {
		t.Errorf("futile wake-ups: batch %d, startbatch %d; want more for batch", batch.FutileWakeups, start.FutileWakeups)
	}
	if start.Dispatch >= batch.Dispatch {
		t.Errorf("startbatch's dispatch %v is not shorter than batch's %v", start.Dispatch, batch.Dispatch)
	}
	// On four idle cores, one worker each.
	shape.Cores = 4
	for _, p := range []Protocol{Batch, StartBatch} {
		shape.Protocol = p
		if r := mustSimulate(t, hostLike, shape); r.FutileWakeups != 0 {
			t.Errorf("%v on idle cores: %+v; want no futile wake-up", p, r)
		}
	}
}

// hostLike are costs of the order a 2-core VM shows: a broadcast to 8
// sleepers costs the waker longer than a sleeper takes to wake.
var hostLike = Costs{WakeToRun: 6 * us, WakeCall: 3 * us, WakePer: 1500 * time.Nanosecond, Futile: 8 * us,
	Enqueue: 400 * time.Nanosecond, Push: 100 * time.Nanosecond, Take: 200 * time.Nanosecond}

// TestPerJobBroadcastCostsMoreThanBatch: perjob's further enqueues each
// make a futex call while workers its broadcasts woke have not yet
// returned from their wait, and where the workers come up on cores of
// their own while the collector is still enqueueing, they wake for nothing
// again and again: at these costs perjob costs more on 2, 8 and 64 cores.
func TestPerJobBroadcastCostsMoreThanBatch(t *testing.T) {
	for _, cores := range []int{2, 8, 64} {
		shape := Shape{Cores: cores, Workers: 8, Wake: Broadcast, Jobs: jobsOf(65, 40*us)}
		per, batch := perJobAndBatch(t, hostLike, shape)
		if per.Dispatch <= batch.Dispatch || per.FutileWakeups < batch.FutileWakeups {
			t.Errorf("%d cores: perjob %+v, batch %+v: perjob should cost more and wake no fewer for nothing", cores, per, batch)
		}
		if cores > shape.Workers && per.FutileWakeups <= 2*batch.FutileWakeups {
			t.Errorf("%d cores: perjob %+v, batch %+v: a herd of futile wake-ups for perjob", cores, per, batch)
		}
	}
}

// TestBroadcastCallsWhileWokenWorkersAreOnTheirWay: workerpool's
// condition variable counts a woken worker as a waiter until it returns
// from its wait, so every broadcast until then makes a futex call that
// wakes nobody (WakeCall). One worker, coming up on an idle core 100 µs
// after it is woken, and three per-job enqueues: the collector's CPU is
// three calls (Enqueue each), the first broadcast (a call, a thread, an
// idle core), and a futile call at the second and third enqueue and at
// Start (another Enqueue).
func TestBroadcastCallsWhileWokenWorkersAreOnTheirWay(t *testing.T) {
	c := Costs{WakeToRun: 100 * us, WakeCall: 3 * us, WakePer: us, WakeIdle: 5 * us, Futile: 8 * us, Enqueue: us}
	m := newMachine(c, Shape{Cores: 2, Workers: 1, Protocol: PerJob, Wake: Broadcast, Jobs: jobsOf(3, 10*us)})
	m.newCollection()
	m.collect()
	m.run()
	want := 3*c.Enqueue + (c.WakeCall + c.WakePer + c.WakeIdle) + 2*c.WakeCall + (c.Enqueue + c.WakeCall)
	if m.collector.ran != want || !m.finished {
		t.Errorf("the collector ran %v (finished %v); want %v", m.collector.ran, m.finished, want)
	}
}

// TestTargetedWakesNobodyWhileGated: Targeted makes no wake call while the
// gate is closed, so perjob and batch differ only by perjob's 64 more
// calls (64 × (Enqueue − Push)), and from Start on they are the same
// collection.
func TestTargetedWakesNobodyWhileGated(t *testing.T) {
	shape := Shape{Cores: 2, Workers: 8, Wake: Targeted, Jobs: jobsOf(65, 40*us)}
	per, batch := perJobAndBatch(t, hostLike, shape)
	if per.FutileWakeups != batch.FutileWakeups || per.Wakes != batch.Wakes {
		t.Errorf("perjob %+v, batch %+v: the same wakes after Start", per, batch)
	}
	if d, want := per.Dispatch-batch.Dispatch, 64*(hostLike.Enqueue-hostLike.Push); d != want {
		t.Errorf("Targeted perjob − batch = %v: only the calls should differ (%v)", d, want)
	}
}

// TestOneCoreSerializesTheHerd: on one core every worker a per-job
// broadcast wakes preempts the collector and runs its futile wake-up
// before the next enqueue, which wakes it again; a batch wakes each worker
// for nothing at most once before Start.
func TestOneCoreSerializesTheHerd(t *testing.T) {
	shape := Shape{Cores: 1, Workers: 8, Wake: Broadcast, Jobs: jobsOf(65, 40*us)}
	per, batch := perJobAndBatch(t, hostLike, shape)
	if per.FutileWakeups < len(shape.Jobs) || per.Preemptions < len(shape.Jobs) {
		t.Errorf("perjob on one core %+v: want a futile wake-up and a preemption of the collector per enqueue at least", per)
	}
	if batch.FutileWakeups > shape.Workers {
		t.Errorf("batch on one core %+v: at most one futile wake-up per worker", batch)
	}
}

// TestWakeCostChargesEachIdleCoreOnce: a wake call pays WakeIdle once for
// each idle core other than the waker's that it wakes a thread onto, and
// nothing for the threads that go onto a core that is running or that
// another of them is on its way to, no idle core being left.
func TestWakeCostChargesEachIdleCoreOnce(t *testing.T) {
	c := Costs{WakeCall: 3 * us, WakePer: 2 * us, WakeIdle: 10 * us}
	m := newMachine(c, Shape{Cores: 4, Workers: 5, Jobs: jobsOf(1, us)})
	// newMachine puts worker i on core (i+1) mod 4: cores 1, 2, 3, 0, 1.
	busy := &thread{}
	m.cores[3].running = busy
	got := m.wakeCost(m.collector, m.parked...)
	if want := 3*us + 5*2*us + 2*10*us; got != want { // cores 1 and 2 come out of idle
		t.Errorf("wake cost %v, want %v", got, want)
	}
	if got, want := m.wakeCost(m.collector, m.parked[3]), 3*us+2*us+10*us; got != want { // core 0 busy: to idle core 1
		t.Errorf("wake of a worker last on the busy waker's core: %v, want %v", got, want)
	}
	m.cores[1].running, m.cores[2].running = busy, busy
	if got, want := m.wakeCost(m.collector, m.parked[3]), 3*us+2*us; got != want { // no core idle: onto the waker's own
		t.Errorf("wake onto the waker's core: %v, want %v", got, want)
	}
	// Two workers that last ran on idle core 1, with cores 2 and 3 idle
	// too: the first goes to core 1, the second, finding it taken, to core
	// 2 — two interrupts, as wakeThread places them.
	m = newMachine(c, Shape{Cores: 4, Workers: 2, Jobs: jobsOf(1, us)})
	for _, w := range m.parked {
		w.core = m.cores[1]
	}
	if got, want := m.wakeCost(m.collector, m.parked...), 3*us+2*2*us+2*10*us; got != want {
		t.Errorf("two workers last on one idle core, others idle: wake cost %v, want %v", got, want)
	}
}

func TestMoreCoresShortenTheSpan(t *testing.T) {
	shape := Shape{Workers: 8, Protocol: Batch, Wake: Broadcast, Jobs: jobsOf(65, 40*us)}
	shape.Cores = 2
	two := mustSimulate(t, hostLike, shape)
	shape.Cores = 9
	nine := mustSimulate(t, hostLike, shape)
	if nine.JobSpan*3 > two.JobSpan {
		t.Errorf("span on 9 cores %v, on 2 cores %v: want about 4× shorter", nine.JobSpan, two.JobSpan)
	}
}

// TestSeriesIsTheMeanOfItsCollections: the one-job collection of
// TestOneJobByHand with a 100 µs and then a 300 µs job: each collection
// is that one with its own job, so the series reports the mean span.
func TestSeriesIsTheMeanOfItsCollections(t *testing.T) {
	c := Costs{WakeToRun: 10 * us}
	s := Shape{Cores: 4, Workers: 1, Protocol: Batch, Wake: Broadcast}
	r, err := SimulateSeries(c, s, [][]time.Duration{jobsOf(1, 100*us), jobsOf(1, 300*us)})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Dispatch: 220 * us, ToFirstJob: 10 * us, JobSpan: 200 * us, JoinLatency: 10 * us, Wakes: 2}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
}

// TestSeriesPartsAddUp: averaged part by part, a series' parts still add
// up to its dispatch, however the means round.
func TestSeriesPartsAddUp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		series := make([][]time.Duration, rapid.IntRange(1, 7).Draw(t, "collections"))
		for i := range series {
			series[i] = make([]time.Duration, rapid.IntRange(1, 40).Draw(t, "jobs"))
			for j := range series[i] {
				series[i][j] = time.Duration(rapid.IntRange(0, 100000).Draw(t, "job"))
			}
		}
		s := Shape{Cores: rapid.IntRange(1, 8).Draw(t, "cores"), Workers: rapid.IntRange(1, 16).Draw(t, "workers"),
			Protocol: Protocol(rapid.IntRange(0, 2).Draw(t, "protocol")), Wake: Wake(rapid.IntRange(0, 1).Draw(t, "wake"))}
		r, err := SimulateSeries(hostLike, s, series)
		if err != nil {
			t.Fatal(err)
		}
		if r.ToFirstJob+r.JobSpan+r.JoinLatency != r.Dispatch {
			t.Fatalf("parts %+v do not add up", r)
		}
	})
}

func TestSimulateSeriesRejectsEmptyCollections(t *testing.T) {
	s := Shape{Cores: 1, Workers: 1}
	for _, series := range [][][]time.Duration{nil, {jobsOf(1, us), nil}} {
		if _, err := SimulateSeries(hostLike, s, series); !errors.Is(err, ErrShape) {
			t.Errorf("%d collections: err = %v, want ErrShape", len(series), err)
		}
	}
}

func TestSimulateRejectsBadShapes(t *testing.T) {
	for _, s := range []Shape{{Cores: 0, Workers: 1, Jobs: jobsOf(1, us)}, {Cores: 1, Workers: 0, Jobs: jobsOf(1, us)},
		{Cores: 1, Workers: 1}, {Cores: 1, Workers: 5000, Jobs: jobsOf(1, us)},
		{Cores: 1, Workers: 1, Jobs: []time.Duration{-time.Second, time.Millisecond}},
		{Cores: 1, Workers: 1, Jobs: jobsOf(1, us), Protocol: 7}, {Cores: 1, Workers: 1, Jobs: jobsOf(1, us), Wake: 7}} {
		if _, err := Simulate(hostLike, s); !errors.Is(err, ErrShape) {
			t.Errorf("%+v: err = %v, want ErrShape", s, err)
		}
	}
	negative := hostLike
	negative.WakeToRun = -time.Second
	if _, err := Simulate(negative, Shape{Cores: 1, Workers: 1, Jobs: jobsOf(1, us)}); !errors.Is(err, ErrShape) {
		t.Errorf("a negative cost: err = %v, want ErrShape", err)
	}
	if _, _, err := Predict(hostLike, Work{}, 2, 2, PerJob, Broadcast); !errors.Is(err, ErrShape) {
		t.Errorf("Predict of job costs without curves: err = %v, want ErrShape", err)
	}
	if got := Protocol(7).String() + Wake(7).String(); got != "Protocol(7)Wake(7)" {
		t.Errorf("names of unknown values: %q", got)
	}
}

// TestEveryShapeFinishes: whatever the shape and costs, every job runs,
// the collector returns, and the parts add up to the dispatch.
func TestEveryShapeFinishes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := func(name string, hi int) time.Duration {
			return time.Duration(rapid.IntRange(0, hi).Draw(t, name)) * time.Nanosecond
		}
		c := Costs{WakeToRun: d("w2r", 50000), WakeCall: d("call", 5000), WakePer: d("per", 3000), Futile: d("futile", 20000),
			Push: d("push", 500), Take: d("take", 500)}
		jobs := make([]time.Duration, rapid.IntRange(1, 200).Draw(t, "jobs"))
		for i := range jobs {
			jobs[i] = d("job", 100000)
		}
		s := Shape{Cores: rapid.IntRange(1, 64).Draw(t, "cores"), Workers: rapid.IntRange(1, 64).Draw(t, "workers"),
			Protocol: Protocol(rapid.IntRange(0, 2).Draw(t, "protocol")), Wake: Wake(rapid.IntRange(0, 1).Draw(t, "wake")), Jobs: jobs}
		r, err := Simulate(c, s)
		if err != nil {
			t.Fatal(err)
		}
		if r.ToFirstJob+r.JobSpan+r.JoinLatency != r.Dispatch || r.ToFirstJob < 0 || r.JobSpan < 0 || r.JoinLatency < 0 {
			t.Fatalf("parts %+v do not add up", r)
		}
		var work time.Duration
		for _, j := range jobs {
			work += j
		}
		if r.JobSpan < work/time.Duration(min(s.Cores, s.Workers)) {
			t.Fatalf("span %v is shorter than the work %v spread over %d cores", r.JobSpan, work, min(s.Cores, s.Workers))
		}
	})
}

func TestSpreadShowsEachCostsRange(t *testing.T) {
	runs := []Costs{{WakeToRun: 20 * us, WakeIdle: 10 * us, Futile: 9 * us}, {WakeToRun: 30 * us, WakeIdle: 4 * us, Futile: 7 * us},
		{WakeToRun: 25 * us, WakeIdle: 6 * us, Futile: 8 * us}}
	got := Spread(runs)
	for _, want := range []string{"wake-to-run 20µs–30µs", "per idle CPU woken 4µs–10µs", "futile wake-up 7µs–9µs", "push 0s–0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("Spread = %q, want it to contain %q", got, want)
		}
	}
}

// TestFutileWakeupCostsFutileHandoffIncluded: Calibrate measures Futile
// as all the CPU the workers run in gated rounds, the wakes by which they
// hand the queue lock on included, divided by their futile wake-ups; so a
// worker that finds nothing and releases the lock to a sleeper on it
// spends Futile in all, not Futile plus the hand-off.
func TestFutileWakeupCostsFutileHandoffIncluded(t *testing.T) {
	c := Costs{WakeCall: 3 * us, WakePer: 1500 * time.Nanosecond, Futile: 8 * us, Take: us}
	for _, waiter := range []bool{false, true} {
		m := newMachine(c, Shape{Cores: 2, Workers: 2, Protocol: PerJob, Wake: Broadcast, Jobs: jobsOf(1, us)})
		w, other := m.parked[0], m.parked[1]
		m.parked = nil
		// w has just taken the lock and looked (Take) behind the closed gate.
		w.core.running, w.onCore, w.ran, m.lockHeld = w, true, c.Take, true
		if waiter {
			m.lockWaiters, m.contended = []pending{{t: other, then: func() {}}}, true
		}
		m.sleep(w, true)
		m.run()
		if w.ran != c.Futile {
			t.Errorf("a sleeper on the lock: %v; the futile worker ran %v, want %v in all", waiter, w.ran, c.Futile)
		}
		if w.onCore || w.parking || len(m.parked) != 1 || m.parked[0] != w {
			t.Errorf("a sleeper on the lock: %v; the futile worker is not asleep in its wait", waiter)
		}
	}
}

// TestBargerWakesNobody: workerpool's futex mutex marks its word
// contended only when a thread finds it held or comes back from sleeping
// on it; a thread that takes it free marks it held without sleepers, so
// its unlock makes no wake call even while others still sleep on the
// lock (they wait for the thread woken before, which marks it contended
// again). A contended unlock calls even if nobody sleeps.
func TestBargerWakesNobody(t *testing.T) {
	c := Costs{WakeCall: 3 * us, WakePer: 1500 * time.Nanosecond, Futile: 8 * us, Take: us}
	for _, tc := range []struct {
		contended, sleeper bool
		wakes              int
		ran                time.Duration
	}{
		{false, true, 0, 0},
		{true, true, 1, c.WakeCall + c.WakePer},
		{true, false, 0, c.WakeCall},
	} {
		m := newMachine(c, Shape{Cores: 2, Workers: 1, Protocol: PerJob, Wake: Broadcast, Jobs: jobsOf(1, us)})
		sleeper := m.parked[0] // on the other core: the unlocker is not preempted
		m.parked = nil
		col := m.collector
		m.lockHeld, m.contended = true, tc.contended
		if tc.sleeper {
			m.lockWaiters = []pending{{t: sleeper, then: func() {}}}
		}
		unlocked := false
		m.unlock(col, func() { unlocked = true })
		m.run()
		if !unlocked || m.res.Wakes != tc.wakes || col.ran != tc.ran {
			t.Errorf("contended %v, a sleeper %v: unlocked %v, %d wakes, the unlocker ran %v; want %d wakes and %v",
				tc.contended, tc.sleeper, unlocked, m.res.Wakes, col.ran, tc.wakes, tc.ran)
		}
	}
	// A thread woken from the lock takes it marked contended.
	m := newMachine(c, Shape{Cores: 1, Workers: 1, Protocol: PerJob, Wake: Broadcast, Jobs: jobsOf(1, us)})
	m.lockAs(m.collector, true, func() {})
	if !m.lockHeld || !m.contended {
		t.Errorf("a thread back from sleeping on the lock holds it %v, marked contended %v; want both", m.lockHeld, m.contended)
	}
}

// TestWakeGoesToAnIdleCore: a worker that last ran on the collector's
// core, woken while another core idles, comes up there (WakeToRun after
// the wake) and leaves the collector alone; and a batch of long jobs on as
// many cores as workers runs in parallel, whichever core each hand-off of
// the lock reaches.
func TestWakeGoesToAnIdleCore(t *testing.T) {
	m := newMachine(hostLike, Shape{Cores: 2, Workers: 2, Protocol: Batch, Wake: Broadcast, Jobs: jobsOf(1, us)})
	w := m.parked[1] // on core (1+1) mod 2 = 0, the collector's
	if w.core != m.cores[0] {
		t.Fatal("the test's worker did not start on the collector's core")
	}
	m.parked = m.parked[:1]
	ran := time.Duration(-1)
	m.wakeThread(w, func() { ran = m.now; m.block(w) })
	m.run()
	if w.core != m.cores[1] || ran != hostLike.WakeToRun || m.res.Preemptions != 0 {
		t.Errorf("woken onto core %p at %v with %d preemptions; want core 1 (%p) at %v and none",
			w.core, ran, m.res.Preemptions, m.cores[1], hostLike.WakeToRun)
	}
	// A calibration of the project's VM (1 Dec 2026).
	vm := Costs{WakeToRun: 24555, WakeCall: 1326, WakePer: 978, WakeIdle: 7104, Futile: 5625, Enqueue: 35, Push: 1, Take: 285}
	r := mustSimulate(t, vm, Shape{Cores: 8, Workers: 8, Protocol: Batch, Wake: Broadcast, Jobs: jobsOf(64, 50*us)})
	if r.JobSpan > 2*8*50*us {
		t.Errorf("64 jobs of 50µs on 8 cores took %v from the first start to the last end; want about 400µs", r.JobSpan)
	}
}

// TestWorkersSettleBetweenCollections: a per-job broadcast on one core
// leaves workers woken for nothing queued behind the collector when Join
// returns; they run out their wake-ups while the collector mutates, so
// the next collection starts with every worker asleep and no core's queue
// holding a thread.
func TestWorkersSettleBetweenCollections(t *testing.T) {
	for _, cores := range []int{1, 2} {
		shape := Shape{Cores: cores, Workers: 8, Protocol: PerJob, Wake: Broadcast, Jobs: jobsOf(65, 40*us)}
		m := newMachine(hostLike, shape)
		for i := range 3 {
			m.newCollection()
			m.collect()
			m.run()
			if len(m.parked) != shape.Workers || m.unreturned != 0 {
				t.Errorf("%d cores, collection %d: %d of %d workers asleep after it, %d not returned from a wake",
					cores, i, len(m.parked), shape.Workers, m.unreturned)
			}
			for j, c := range m.cores {
				if len(c.queue) > 0 {
					t.Errorf("%d cores, collection %d: core %d still has %d threads queued", cores, i, j, len(c.queue))
				}
			}
		}
	}
}

// TestTargetedStartWakesAfterTheUnlock: workerpool unparks the worker
// Start picks after releasing the queue lock, so on one core the woken
// worker, which preempts the collector, does not find the lock held and
// sleep on it: one wake in all (the collector, back, finds the job done).
func TestTargetedStartWakesAfterTheUnlock(t *testing.T) {
	r := mustSimulate(t, hostLike, Shape{Cores: 1, Workers: 1, Protocol: Batch, Wake: Targeted, Jobs: jobsOf(1, 40*us)})
	if r.Wakes != 1 || r.FutileWakeups != 0 {
		t.Errorf("%+v: want 1 wake (no hand-off of the lock) and no futile wake-up", r)
	}
}

// TestJoinWakeLandsAsABroadcastsDoes: every wake reaches its thread
// WakeCall + WakePer after the call began, as Calibrate's WakeToRun
// assumes; the interrupt that brings an idle core up (WakeIdle) is the
// waker's CPU after that. One worker on an idle core, one 100 µs job: it
// runs 2 + 10 µs after the broadcast began, and the collector, asleep in
// Join on its own idle core, runs 2 + 10 µs after the job's end.
func TestJoinWakeLandsAsABroadcastsDoes(t *testing.T) {
	c := Costs{WakeToRun: 10 * us, WakeCall: 2 * us, WakeIdle: 5 * us}
	r := mustSimulate(t, c, Shape{Cores: 4, Workers: 1, Protocol: Batch, Wake: Broadcast, Jobs: jobsOf(1, 100*us)})
	want := Result{Dispatch: 124 * us, ToFirstJob: 12 * us, JobSpan: 100 * us, JoinLatency: 12 * us, Wakes: 2}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
}
