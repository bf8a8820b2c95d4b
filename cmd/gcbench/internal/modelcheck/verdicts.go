package modelcheck

import (
	"fmt"
	"math"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
)

// The kernel's observables of a native run, per collection, as the
// native backend's probe records them among a mode's counter means (a
// point without them has none of these keys).
const (
	keyCollectorPreemptions = "collector_preemptions"        // the collector's involuntary context switches
	keyOnCollectorCPU       = "wakeups_on_collector_cpu"     // workers' wake-ups on the collector's CPU
	keyElsewhere            = "wakeups_elsewhere"            // workers' wake-ups on another CPU
	keyAsleepOnMutex        = "asleep_on_mutex_at_start"     // workers asleep on the mutex as the collection starts
	keyAsleepOnCond         = "asleep_on_work_cond_at_start" // workers asleep on the work condition then
)

// The verdicts' targets.
const (
	futileHitShare   = 80.0 // check 2: share (%) of points whose futile wake-ups are within futileTolerance
	envelopeShare    = 90.0 // check 3: share (%) of points inside the pause envelope
	oneCoreMaxWorker = 8    // check 4: the one-core points checked, up to this many workers
	countTolerance   = 1e-6 // check 1: a mean of whole counts equal up to rounding
)

// kernelOf reads the kernel's observables from a perjob mode's counter
// means: the model's Kernel with the measured preemptions and placement,
// and false if either is missing. The sleepers on the mutex at Start are
// fed in where the run took the snapshot (gcbench run --kernel-snapshot,
// off by default because it lengthens the pause it observes); else the
// model starts with none.
func kernelOf(means map[string]float64, workers int) (pausemodel.Kernel, bool) {
	var v [3]float64
	for i, key := range []string{keyCollectorPreemptions, keyOnCollectorCPU, keyElsewhere} {
		x, ok := means[key]
		if !ok || math.IsNaN(x) || x < 0 {
			return pausemodel.Kernel{}, false
		}
		v[i] = x
	}
	asleep := 0
	if x, ok := means[keyAsleepOnMutex]; ok && x >= 0 {
		asleep = min(workers, int(math.Round(x)))
	}
	k := pausemodel.Kernel{Preemption: pausemodel.PreemptMeasured, Preemptions: v[0], AsleepOnMutex: asleep}
	if v[1]+v[2] > 0 {
		k.Placed, k.OnCollectorCPU = true, v[1]/(v[1]+v[2])
	}
	return k, true
}

// A verdict line is one of the four checks' outcome, as predict prints it:
// "check N (what): figures PASSED" or "… MISSED".
type verdictLine struct {
	N       int
	What    string
	Figures string
	Passed  bool
}

func (l verdictLine) String() string {
	word := "MISSED"
	if l.Passed {
		word = "PASSED"
	}
	return fmt.Sprintf("check %d (%s): %s %s", l.N, l.What, l.Figures, word)
}

// Verdicts are the four checks' lines, in order.
func verdicts(vals []validation) []verdictLine {
	return []verdictLine{checkCounts(vals), checkFutile(vals), checkEnvelope(vals), checkOneCore(vals)}
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// modeCounts is what check 1 claims of one mode's collection with j
// jobs: the work condition's broadcasts (one per enqueue call and one at
// Start), the enqueue calls' lock acquisitions and wake calls.
func modeCounts(mode gcsim.Mode, j int) (broadcasts, enqueueLocks float64) {
	if mode == gcsim.Batch {
		return 2, 1
	}
	return float64(j + 1), float64(j)
}

// countsMatch checks one mode's counter means against the protocol's
// exact counts: pool_wake_calls = the broadcasts, and
// pool_enqueue_lock_acquisitions = pool_enqueue_wake_calls = the enqueue
// calls; and the lock acquisitions' identity: each worker takes the mutex
// once per job (to retire it and look for the next in one hold) and once
// per return from its wait, so pool_lock_acquisitions −
// pool_workers_woken − jobs − the enqueue calls' acquisitions is the
// collector's Start and Join: 2 plus one per Join wake-up, a whole
// number from 2 to 2 + jobs. ok is false if a counter is missing.
func countsMatch(means map[string]float64, mode gcsim.Mode, j int) (match, ok bool) {
	get := func(c gcsim.Counter) (float64, bool) { x, ok := means[c.String()]; return x, ok }
	wakes, ok1 := get(gcsim.CounterWakeCalls)
	enqLocks, ok2 := get(gcsim.CounterEnqueueLockAcquisitions)
	enqWakes, ok3 := get(gcsim.CounterEnqueueWakeCalls)
	locks, ok4 := get(gcsim.CounterLockAcquisitions)
	woken, ok5 := get(gcsim.CounterWorkersWoken)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return false, false
	}
	eq := func(a, b float64) bool { return math.Abs(a-b) <= countTolerance*math.Max(1, math.Abs(b)) }
	broadcasts, calls := modeCounts(mode, j)
	rest := locks - woken - float64(j) - enqLocks
	return eq(wakes, broadcasts) && eq(enqLocks, calls) && eq(enqWakes, calls) &&
		rest >= 2-countTolerance && rest <= float64(2+j)+countTolerance, true
}

// checkCounts is check 1: at every point with the pool's counters, both
// modes' counts are the protocol's (countsMatch) and the model's
// simulated broadcasts are the same.
func checkCounts(vals []validation) verdictLine {
	l := verdictLine{N: 1, What: "exact counts"}
	var hits, counted int
	for _, v := range vals {
		per, okP := countsMatch(v.PerJobMeans, gcsim.PerJob, v.Jobs)
		batch, okB := countsMatch(v.BatchMeans, gcsim.Batch, v.Jobs)
		if !okP || !okB {
			continue
		}
		counted++
		if b, _ := modeCounts(gcsim.PerJob, v.Jobs); per && batch && float64(v.PredictedBroadcasts) == b {
			hits++
		}
	}
	if counted == 0 {
		l.Figures = fmt.Sprintf("the pool's counters not recorded at any of %d points", len(vals))
		return l
	}
	l.Figures = fmt.Sprintf("%d of %d points with the pool's counters equal the model's (broadcasts, enqueue locks and wake calls, "+
		"locks − woken − jobs − enqueue locks in [2, 2 + jobs])", hits, counted)
	if counted < len(vals) {
		l.Figures += fmt.Sprintf("; %d points without them", len(vals)-counted)
	}
	l.Passed = hits == counted
	return l
}

// futileWithin reports whether a predicted count of futile wake-ups is
// within futileTolerance of the measured mean, or within one wake-up.
func futileWithin(predicted, measured float64) bool {
	return math.Abs(predicted-measured) <= math.Max(1, futileTolerance/100*measured)
}

// checkFutile is check 2: with the kernel's measured preemptions,
// placement and sleepers fed in, the predicted futile wake-ups per
// perjob collection are within ±futileTolerance of the measured at
// futileHitShare of the points that recorded them.
func checkFutile(vals []validation) verdictLine {
	l := verdictLine{N: 2, What: "futile wake-ups given the kernel's observables"}
	var hits, observed int
	for _, v := range vals {
		if !v.Observed {
			continue
		}
		observed++
		if futileWithin(float64(v.ObservedFutile), v.MeasuredFutile) {
			hits++
		}
	}
	if observed == 0 {
		l.Figures = fmt.Sprintf("observables not recorded at any of %d points (%s, %s, …)", len(vals), keyCollectorPreemptions, keyOnCollectorCPU)
		return l
	}
	share := pct(hits, observed)
	l.Figures = fmt.Sprintf("%d of %d points within ±%.0f%% (%.0f%%, need %.0f%%)", hits, observed, futileTolerance, share, futileHitShare)
	if observed < len(vals) {
		l.Figures += fmt.Sprintf("; %d points without observables", len(vals)-observed)
	}
	l.Passed = share >= futileHitShare
	return l
}

// inside reports whether a measured mean x, of standard error se, is
// inside the envelope between bounds a and b (either order) of a
// prediction whose relative standard error is relSE: within the noise of
// their difference from the nearer bound (stats.MeanDifferenceNoise, at
// stats.MedianConfidence). A mean is itself a measurement, and an
// envelope can be a line (one worker has nothing to preempt), which an
// exact mean would miss by chance alone.
func inside(x, se, a, b, relSE float64) bool {
	lo, hi := math.Min(a, b), math.Max(a, b)
	tol := func(bound float64) float64 { return stats.MeanDifferenceNoise(se, relSE*bound) }
	return x >= lo-tol(lo) && x <= hi+tol(hi)
}

// inEnvelope reports whether v's measured mean pauses, perjob and batch,
// are each inside its envelope.
func (v validation) inEnvelope() (perJob, batch bool) {
	return inside(v.MeasuredPerJob, v.PerJobSE, v.PerJobLow, v.PerJobHigh, v.PredictionRelSE),
		inside(v.MeasuredBatch, v.BatchSE, v.BatchLow, v.BatchHigh, v.PredictionRelSE)
}

// insideLabel names which of v's means are inside their envelopes.
func insideLabel(v validation) string {
	switch per, batch := v.inEnvelope(); {
	case per && batch:
		return "both"
	case per:
		return "perjob"
	case batch:
		return "batch"
	}
	return "neither"
}

// checkEnvelope is check 3: each point's measured mean pauses, perjob
// and batch, lie between the lowest and the highest of the model's over
// envelopeKernels (inside), at envelopeShare of the points.
// A point whose run has serial collections is predicted with their job
// costs (reference); the line counts how many had them.
func checkEnvelope(vals []validation) verdictLine {
	l := verdictLine{N: 3, What: "pause envelope"}
	hits, referenced := 0, 0
	for _, v := range vals {
		if per, batch := v.inEnvelope(); per && batch {
			hits++
		}
		if v.Referenced {
			referenced++
		}
	}
	if len(vals) == 0 {
		l.Figures = "no native point"
		return l
	}
	share := pct(hits, len(vals))
	l.Figures = fmt.Sprintf("%d of %d points inside, allowing each mean %.2f standard errors (%.0f%%, need %.0f%%); "+
		"jobs priced by the run's own serial collections at %d points", hits, len(vals), stats.MeanDifferenceNoise(1, 0), share, envelopeShare, referenced)
	l.Passed = share >= envelopeShare
	return l
}

// checkOneCore is check 4: on one core, up to oneCoreMaxWorker workers,
// the mean absolute error of perjob − batch is at most goal plus the
// measurement floor.
func checkOneCore(vals []validation) verdictLine {
	l := verdictLine{N: 4, What: "one core"}
	of := where(vals, func(v validation) bool { return v.Cores == 1 && v.workers() <= oneCoreMaxWorker })
	if len(of) == 0 {
		l.Figures = fmt.Sprintf("no one-core point up to %d workers (sweep under taskset -c 0)", oneCoreMaxWorker)
		return l
	}
	j := judge(of)
	l.Figures = fmt.Sprintf("%d points up to %d workers, mean absolute error %.0f µs, %.0f%% of the mean measured difference "+
		"(need ≤ %.0f%% + the floor %.0f%%)", len(of), oneCoreMaxWorker, j.MAE, j.Rel, goal, j.Floor.Rel)
	l.Passed = j.Met
	return l
}
