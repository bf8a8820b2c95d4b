package pausemodel

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
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

// hostLike are costs of the order the calibration measures here.
var hostLike = Costs{WakeToRun: 6 * us, WakeCall: 3 * us, WakePer: 1500 * time.Nanosecond, Futile: 8 * us,
	Enqueue: 400 * time.Nanosecond, Push: 100 * time.Nanosecond, Take: 200 * time.Nanosecond}

// TestOneJobByHand: one worker, one job, only wake latency and the job
// cost. Batch's push broadcasts and wakes the worker (gate closed); Start
// finds nobody left to signal; Join waits on done_cond. The worker, up 10
// µs later on its own idle core, finds the gate open, runs the job,
// retires it and wakes the collector, which returns 10 µs later. Mutex
// acquisitions: the collector's push, Start, Join and its return from the
// wait; the worker's return from its wait and the retire, whose hold also
// looks for the next (SGen's thread_func: one hold per job). The worker's
// CPU is the job; its wait for a CPU, the 10 µs it took to come up.
func TestOneJobByHand(t *testing.T) {
	for _, k := range MutexKinds() {
		r := mustSimulate(t, Costs{WakeToRun: 10 * us}, Shape{Cores: 4, Workers: 1, Mode: gcsim.Batch, Mutex: k, Jobs: jobsOf(1, 100*us)})
		want := Result{Dispatch: 120 * us, ToFirstJob: 10 * us, JobSpan: 100 * us, JoinLatency: 10 * us, Wakes: 2, Broadcasts: 2, Locks: 6,
			WorkerCPU: 100 * us, WorkerWait: 10 * us}
		if r != want {
			t.Errorf("%v: got %+v, want %+v", k, r, want)
		}
	}
}

// TestOneCoreMakesTheWholeHerd: on one core every worker a broadcast
// wakes runs before the collector (it has slept, the collector has run),
// finds the gate closed and waits again before the next enqueue, under
// either mutex: W futile wake-ups per enqueue, as SGen's loop in C makes
// on one core (8 × 65 = 520), and at most W more after Start, from
// workers that find the jobs gone.
func TestOneCoreMakesTheWholeHerd(t *testing.T) {
	for _, k := range MutexKinds() {
		r := mustSimulate(t, hostLike, Shape{Cores: 1, Workers: 8, Mode: gcsim.PerJob, Mutex: k, Jobs: jobsOf(65, 30*us)})
		if r.FutileWakeups < 8*65 || r.FutileWakeups > 8*66 {
			t.Errorf("%v: %d futile wake-ups, want 520 to 528", k, r.FutileWakeups)
		}
		b := mustSimulate(t, hostLike, Shape{Cores: 1, Workers: 8, Mode: gcsim.Batch, Mutex: k, Jobs: jobsOf(65, 30*us)})
		if b.FutileWakeups > 2*8 || b.Dispatch >= r.Dispatch {
			t.Errorf("%v: batch %+v against perjob %+v: want at most 16 futile wake-ups and a shorter dispatch", k, b, r)
		}
	}
}

// TestPIConvoysWhereNormalBarges: on eight idle cores a normal mutex's
// release lets the collector take the lock again before the workers its
// broadcast woke have come up on their cores, so its enqueues find them
// still on their way and wake nobody; a PI mutex hands the lock to each of
// them in turn, and the collector's next enqueue waits behind them all
// while they go back to their wait, to be woken again: several times the
// futile wake-ups (at least twice the normal mutex's, and two per
// enqueue), and the larger perjob − batch. The normal mutex's waiters
// win it only inside the collector's re-lock interval (the part of an
// enqueue call outside the mutex). (Wake-to-run 20 µs, of the order
// measured here: with much less the woken workers are back before the
// collector's next enqueue under either kind.)
func TestPIConvoysWhereNormalBarges(t *testing.T) {
	c := hostLike
	c.WakeToRun = 20 * us
	diff := map[workerpool.MutexKind]time.Duration{}
	futile := map[workerpool.MutexKind]int{}
	for _, k := range MutexKinds() {
		s := Shape{Cores: 8, Workers: 8, Mutex: k, Jobs: jobsOf(65, 30*us)}
		s.Mode = gcsim.PerJob
		per := mustSimulate(t, c, s)
		s.Mode = gcsim.Batch
		batch := mustSimulate(t, c, s)
		diff[k], futile[k] = per.Dispatch-batch.Dispatch, per.FutileWakeups
	}
	if futile[workerpool.MutexPI] < 2*futile[workerpool.MutexNormal] || futile[workerpool.MutexPI] < 2*65 {
		t.Errorf("futile wake-ups: normal %d, PI %d; want PI's at least 2× normal's and 130", futile[workerpool.MutexNormal], futile[workerpool.MutexPI])
	}
	if diff[workerpool.MutexPI] < 4*max(diff[workerpool.MutexNormal], 10*us) {
		t.Errorf("perjob − batch: normal %v, PI %v; want PI's at least 4× normal's", diff[workerpool.MutexNormal], diff[workerpool.MutexPI])
	}
}

// TestWakeIsPulledToTheLessLoadedWakersCore: with no idle core, a thread
// woken goes to the waker's core if its own last core is the busier
// (wake_affine_weight), else stays with its last core.
func TestWakeIsPulledToTheLessLoadedWakersCore(t *testing.T) {
	m := newMachine(hostLike, Shape{Cores: 2, Workers: 4})
	c := m.collector // running on core 0
	w := m.parked
	m.runOn(m.cores[1], pending{t: w[0], then: func() {}})
	if got, idle := m.placement(w[2], c, nil); got != m.cores[1] || idle {
		t.Errorf("equal loads: woken onto core %p (idle %v), want its own, core 1", got, idle)
	}
	m.cores[1].queue = append(m.cores[1].queue, pending{t: w[1]})
	if got, idle := m.placement(w[2], c, nil); got != m.cores[0] || idle {
		t.Errorf("its core busier: woken onto core %p (idle %v), want the waker's, core 0", got, idle)
	}
}

// TestPIHandOffHoldsTheLockForItsNewOwner: a PI unlock with a waiter
// leaves the mutex held (by the waiter, here spinning on the other
// core), so a thread that tries it meanwhile waits; a normal unlock frees
// it, and that thread takes it at once.
func TestPIHandOffHoldsTheLockForItsNewOwner(t *testing.T) {
	for _, k := range MutexKinds() {
		m := newMachine(Costs{WakeToRun: 10 * us}, Shape{Cores: 2, Workers: 1, Mutex: k})
		c, w := m.collector, m.parked[0]
		m.lock(c, func() {})
		m.runOn(m.cores[1], pending{t: w, then: func() {}})
		m.lock(w, func() {}) // waits for the mutex
		released, took := false, false
		m.unlock(c, func() {
			released = true
			m.lock(c, func() { took = true })
		})
		m.run()
		if !released || took == (k == workerpool.MutexPI) {
			t.Errorf("%v: released %v; the releaser took the lock again at once: %v", k, released, took)
		}
	}
}

// TestPITopWaiterSpinsWhileTheOwnerRuns: a thread that finds the PI
// mutex held by a thread running on another core spins on its own core
// (the rtmutex's top waiter); the release hands the mutex over within the
// release call, with no wake-up onto a core, and the spin is the waiter's
// CPU. It sleeps instead when the owner leaves its core, when a thread is
// woken onto its core (unless no wake-up preempts), and on one core; the
// normal mutex's waiter always sleeps.
func TestPITopWaiterSpinsWhileTheOwnerRuns(t *testing.T) {
	c := Costs{WakeToRun: 10 * us, WakeCall: 3 * us, WakePer: 1 * us}
	setup := func(k workerpool.MutexKind, p Preemption) (*machine, *thread, *thread, *time.Duration) {
		m := newMachine(c, Shape{Cores: 2, Workers: 2, Mutex: k, Kernel: Kernel{Preemption: p}})
		owner, w := m.collector, m.parked[0]
		m.lock(owner, func() {})
		m.runOn(m.cores[1], pending{t: w, then: func() {}})
		took := time.Duration(-1)
		m.lock(w, func() { took = m.now })
		return m, owner, w, &took
	}

	m, owner, w, took := setup(workerpool.MutexPI, PreemptEveryWake)
	if m.spinner != w || !w.onCore {
		t.Fatalf("PI, the owner on the other core: spinner %p, waiter on its core %v; want it spinning", m.spinner, w.onCore)
	}
	m.after(50*us, func() { m.unlock(owner, func() {}) })
	m.run()
	if *took != 54*us || m.res.SpinHandOffs != 1 || m.res.HandOffs != 0 || m.res.Wakes != 0 {
		t.Errorf("PI release to the spinner: taken at %v (want 54µs: the release's call), %d spin hand-offs, %d hand-offs, %d wakes; want 1, 0, 0",
			*took, m.res.SpinHandOffs, m.res.HandOffs, m.res.Wakes)
	}
	if w.ran != 54*us {
		t.Errorf("the spinner ran %v, want its 54µs spin", w.ran)
	}

	m, owner, w, _ = setup(workerpool.MutexPI, PreemptEveryWake)
	m.after(20*us, func() { m.block(owner) })
	m.run()
	if m.spinner != nil || w.onCore || w.ran != 20*us {
		t.Errorf("owner off its core: spinner %p, waiter on its core %v, ran %v; want asleep after a 20µs spin", m.spinner, w.onCore, w.ran)
	}

	for _, p := range []Preemption{PreemptEveryWake, PreemptNever} {
		m, _, w, _ = setup(workerpool.MutexPI, p)
		woken := m.parked[1]
		woken.core = m.cores[1] // it last ran on the spinner's core, and no core is idle
		m.wakeThread(woken, m.collector, func() {})
		if spinning := m.spinner == w; spinning != (p == PreemptNever) {
			t.Errorf("%v, a thread woken onto the spinner's core: still spinning %v", p, spinning)
		}
	}

	m, _, w, _ = setup(workerpool.MutexNormal, PreemptEveryWake)
	if m.spinner != nil || w.onCore {
		t.Errorf("normal mutex: spinner %p, waiter on its core %v; want it asleep", m.spinner, w.onCore)
	}
	one := mustSimulate(t, hostLike, Shape{Cores: 1, Workers: 8, Mode: gcsim.Batch, Mutex: workerpool.MutexPI, Jobs: jobsOf(65, 30*us)})
	if one.SpinHandOffs != 0 || one.HandOffs == 0 {
		t.Errorf("one core: %d spin hand-offs, %d hand-offs; want none, and some", one.SpinHandOffs, one.HandOffs)
	}
}

// TestFutileWakeupCostsFutile: a worker that wakes for nothing spends
// Futile in all, its look and its release of the mutex included, as
// Calibrate measures it. One worker, one job, two cores: batch's first
// broadcast wakes it behind the closed gate.
func TestFutileWakeupCostsFutile(t *testing.T) {
	c := Costs{Futile: 8 * us, Take: 2 * us}
	m := newMachine(c, Shape{Cores: 2, Workers: 1, Mutex: workerpool.MutexPI, Jobs: jobsOf(1, 0)})
	w := m.parked[0]
	m.newCollection()
	m.parked = nil
	m.retake(w) // woken with the gate closed
	m.run()
	if w.ran != c.Futile || m.res.FutileWakeups != 1 || len(m.parked) != 1 {
		t.Errorf("ran %v, futile %d, parked %d; want %v, 1, 1", w.ran, m.res.FutileWakeups, len(m.parked), c.Futile)
	}
}

// TestSeriesIsTheMeanOfItsCollections: the one-job collection of
// TestOneJobByHand with a 100 µs and then a 300 µs job.
func TestSeriesIsTheMeanOfItsCollections(t *testing.T) {
	s := Shape{Cores: 4, Workers: 1, Mode: gcsim.Batch, Mutex: workerpool.MutexPI}
	r, err := SimulateSeries(Costs{WakeToRun: 10 * us}, s, [][]time.Duration{jobsOf(1, 100*us), jobsOf(1, 300*us)})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Dispatch: 220 * us, ToFirstJob: 10 * us, JobSpan: 200 * us, JoinLatency: 10 * us, Wakes: 2, Broadcasts: 2, Locks: 6,
		WorkerCPU: 200 * us, WorkerWait: 10 * us}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
}

func TestSimulateSeriesRejectsEmptyCollections(t *testing.T) {
	s := Shape{Cores: 1, Workers: 1, Mode: gcsim.PerJob}
	for _, series := range [][][]time.Duration{nil, {jobsOf(1, us), nil}} {
		if _, err := SimulateSeries(hostLike, s, series); !errors.Is(err, ErrShape) {
			t.Errorf("%d collections: err = %v, want ErrShape", len(series), err)
		}
	}
}

func TestSimulateRejectsBadShapes(t *testing.T) {
	one := jobsOf(1, us)
	for _, s := range []Shape{{Cores: 0, Workers: 1, Jobs: one}, {Cores: 1, Workers: 0, Jobs: one},
		{Cores: 1, Workers: 1}, {Cores: 1, Workers: 5000, Jobs: one},
		{Cores: 1, Workers: 1, Jobs: []time.Duration{-time.Second, time.Millisecond}}} {
		s.Mode = gcsim.PerJob
		if _, err := Simulate(hostLike, s); !errors.Is(err, ErrShape) {
			t.Errorf("%+v: err = %v, want ErrShape", s, err)
		}
	}
	negative := hostLike
	negative.WakeToRun = -time.Second
	if _, err := Simulate(negative, Shape{Cores: 1, Workers: 1, Mode: gcsim.PerJob, Jobs: one}); !errors.Is(err, ErrShape) {
		t.Errorf("a negative cost: err = %v, want ErrShape", err)
	}
	if _, _, err := Predict(hostLike, Work{}, 2, 2, gcsim.PerJob, workerpool.MutexPI); !errors.Is(err, ErrShape) {
		t.Errorf("Predict of job costs without curves: err = %v, want ErrShape", err)
	}
}

// TestSimulateRefusesWhatItDoesNotModel: a mode or a mutex kind outside
// Modes and MutexKinds is refused with ErrNotModelled, and the error
// names the value and what the model has instead.
func TestSimulateRefusesWhatItDoesNotModel(t *testing.T) {
	for _, c := range []struct {
		mode  gcsim.Mode
		mutex workerpool.MutexKind
		want  string
	}{
		{gcsim.Serial, workerpool.MutexNormal, "mode serial (the model has perjob, batch and startbatch)"},
		{gcsim.Mode(9), workerpool.MutexNormal, "mode Mode(9)"},
		{gcsim.Batch, workerpool.MutexAdaptive, "mutex kind adaptive (the model has normal and pi)"},
		{gcsim.Batch, workerpool.MutexKind(9), "mutex kind MutexKind(9)"},
	} {
		_, err := Simulate(hostLike, Shape{Cores: 1, Workers: 1, Mode: c.mode, Mutex: c.mutex, Jobs: jobsOf(1, us)})
		if !errors.Is(err, ErrNotModelled) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v: err = %v, want ErrNotModelled saying %q", c.mode, c.mutex, err, c.want)
		}
	}
	if _, _, err := Calibrate(context.Background(), 1, workerpool.MutexAdaptive); !errors.Is(err, ErrNotModelled) {
		t.Errorf("Calibrate(adaptive): err = %v, want ErrNotModelled", err)
	}
	for _, m := range Modes() {
		for _, k := range MutexKinds() {
			if _, err := Simulate(hostLike, Shape{Cores: 1, Workers: 1, Mode: m, Mutex: k, Jobs: jobsOf(1, us)}); err != nil {
				t.Errorf("%v, %v: %v", m, k, err)
			}
		}
	}
}

// TestEveryShapeFinishes: whatever the shape and costs, every job runs,
// the collector returns, the parts add up to the dispatch, and the
// timing-free bounds hold: each broadcast wakes each waiting worker at
// most once (futile wake-ups at most workers × broadcasts), perjob
// broadcasts once per job and at Start, and the workers take the mutex
// twice per job.
func TestEveryShapeFinishes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := func(name string, hi int) time.Duration {
			return time.Duration(rapid.IntRange(0, hi).Draw(t, name)) * time.Nanosecond
		}
		c := Costs{WakeToRun: d("w2r", 50000), WakeCall: d("call", 5000), WakePer: d("per", 3000), WakeIdle: d("idle", 6000),
			Futile: d("futile", 20000), Enqueue: d("enqueue", 500), Push: d("push", 500), Take: d("take", 500)}
		jobs := make([]time.Duration, rapid.IntRange(1, 100).Draw(t, "jobs"))
		for i := range jobs {
			jobs[i] = d("job", 100000)
		}
		s := Shape{Cores: rapid.IntRange(1, 32).Draw(t, "cores"), Workers: rapid.IntRange(1, 32).Draw(t, "workers"),
			Mode: rapid.SampledFrom(Modes()).Draw(t, "mode"), Mutex: rapid.SampledFrom(MutexKinds()).Draw(t, "mutex"), Jobs: jobs}
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
		broadcasts := map[gcsim.Mode]int{gcsim.PerJob: len(jobs) + 1, gcsim.Batch: 2, gcsim.StartBatch: 1}[s.Mode]
		if r.Broadcasts != broadcasts || r.FutileWakeups > s.Workers*broadcasts || r.Locks < len(jobs)+2 {
			t.Fatalf("%v: %+v; want %d broadcasts, at most %d futile wake-ups, at least %d locks", s.Mode, r,
				broadcasts, s.Workers*broadcasts, len(jobs)+2)
		}
	})
}

func TestRangeOfShowsEachCostsRange(t *testing.T) {
	runs := []Costs{{WakeToRun: 20 * us, WakeIdle: 10 * us, Futile: 9 * us}, {WakeToRun: 30 * us, WakeIdle: 4 * us, Futile: 7 * us},
		{WakeToRun: 25 * us, WakeIdle: 6 * us, Futile: 8 * us}}
	got := RangeOf(runs).String()
	for _, want := range []string{"wake-to-run 20µs–30µs", "per idle CPU woken 4µs–10µs", "futile wake-up 7µs–9µs", "push 0s–0s"} {
		if !strings.Contains(got, want) {
			t.Errorf("RangeOf(runs).String() = %q, want it to contain %q", got, want)
		}
	}
}

// On one core a PI convoy runs one thread at a time, so every hand-off's
// HandOff lengthens the collection by exactly that much; the normal mutex
// hands nothing off and ignores it.
func TestHandOffChargesEachPIHandOffOnce(t *testing.T) {
	s := Shape{Cores: 1, Workers: 8, Mode: gcsim.Batch, Jobs: jobsOf(65, 50*us)}
	for _, k := range MutexKinds() {
		s.Mutex = k
		without := mustSimulate(t, hostLike, s)
		c := hostLike
		c.HandOff = 3 * us
		with := mustSimulate(t, c, s)
		if k == workerpool.MutexNormal {
			if without.HandOffs != 0 || with != without {
				t.Errorf("normal mutex: %+v without HandOff, %+v with it; want no hand-offs and the same result", without, with)
			}
			continue
		}
		if with.HandOffs == 0 || with.HandOffs != without.HandOffs {
			t.Fatalf("PI: %d hand-offs without HandOff, %d with it; want the same, more than 0", without.HandOffs, with.HandOffs)
		}
		if got, want := with.Dispatch-without.Dispatch, time.Duration(with.HandOffs)*c.HandOff; got != want {
			t.Errorf("PI: HandOff lengthened the collection by %v, want %d hand-offs × %v = %v", got, with.HandOffs, c.HandOff, want)
		}
	}
}

// TestWorkerTimesOfTwoWorkers: 17 jobs of 150 µs through two workers. On
// one core the workers' CPU is the jobs and more, and one of them waits
// while the other runs, most of the span; on two cores the model gives
// each worker a core of its own (an idle core takes a queued thread at
// once), so they wait only to come up — the near-zero wait that the
// kernel's measured worker_wait_us contradicts (docs/predict.md).
func TestWorkerTimesOfTwoWorkers(t *testing.T) {
	for _, k := range MutexKinds() {
		one := mustSimulate(t, hostLike, Shape{Cores: 1, Workers: 2, Mode: gcsim.Batch, Mutex: k, Jobs: jobsOf(17, 150*us)})
		two := mustSimulate(t, hostLike, Shape{Cores: 2, Workers: 2, Mode: gcsim.Batch, Mutex: k, Jobs: jobsOf(17, 150*us)})
		for _, r := range []Result{one, two} {
			if r.WorkerCPU < 17*150*us {
				t.Errorf("%v: workers' CPU %v, less than the jobs'", k, r.WorkerCPU)
			}
		}
		if one.WorkerWait < 2*time.Millisecond || two.WorkerWait > 50*us {
			t.Errorf("%v: workers' wait %v on one core, %v on two; want most of the span, and only the wake-ups", k, one.WorkerWait, two.WorkerWait)
		}
	}
}
