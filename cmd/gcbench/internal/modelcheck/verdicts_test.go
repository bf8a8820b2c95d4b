package modelcheck

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counted is v with the pool's counters of a collection of j jobs as the
// protocol makes them: woken workers per mode, joinWakes of the Join.
func counted(v validation, j int, wokenPer, wokenBatch, joinWakes float64) validation {
	v.Jobs, v.PredictedBroadcasts = j, j+1
	means := func(calls, broadcasts, woken float64) map[string]float64 {
		return map[string]float64{
			gcsim.CounterWakeCalls.String(): broadcasts, gcsim.CounterEnqueueWakeCalls.String(): calls,
			gcsim.CounterEnqueueLockAcquisitions.String(): calls, gcsim.CounterWorkersWoken.String(): woken,
			gcsim.CounterLockAcquisitions.String(): calls + 2 + joinWakes + float64(j) + woken,
		}
	}
	v.PerJobMeans, v.BatchMeans = means(float64(j), float64(j+1), wokenPer), means(1, 2, wokenBatch)
	return v
}

func TestCheckCountsPassesTheProtocolsCounts(t *testing.T) {
	vals := []validation{counted(val(workerpool.MutexNormal, 2, 4, 10, 10), 33, 40.5, 3.25, 2.5),
		counted(val(workerpool.MutexPI, 1, 8, 10, 10), 65, 520, 9, 0)}
	l := checkCounts(vals)
	assert.True(t, l.Passed, l.String())
	assert.True(t, strings.HasPrefix(l.String(), "check 1 (exact counts): 2 of 2 points"), l.String())
	assert.True(t, strings.HasSuffix(l.String(), " PASSED"), l.String())
}

func TestCheckCountsMissesAnExtraBroadcastOrLock(t *testing.T) {
	extraWake := counted(val(workerpool.MutexNormal, 2, 4, 10, 10), 33, 40, 3, 1)
	extraWake.PerJobMeans[gcsim.CounterWakeCalls.String()]++
	fewLocks := counted(val(workerpool.MutexNormal, 2, 2, 10, 10), 17, 20, 3, 0)
	fewLocks.BatchMeans[gcsim.CounterLockAcquisitions.String()] -= 1 // Start or Join took none
	for _, v := range []validation{extraWake, fewLocks} {
		l := checkCounts([]validation{v})
		assert.False(t, l.Passed, l.String())
		assert.True(t, strings.HasSuffix(l.String(), " MISSED"), l.String())
	}
	modelOff := counted(val(workerpool.MutexNormal, 2, 4, 10, 10), 33, 40, 3, 1)
	modelOff.PredictedBroadcasts = 33
	assert.False(t, checkCounts([]validation{modelOff}).Passed, "the model's own count must be the protocol's")
}

func TestCheckCountsMissesWithoutCounters(t *testing.T) {
	l := checkCounts([]validation{val(workerpool.MutexNormal, 2, 4, 10, 10)})
	assert.Equal(t, "check 1 (exact counts): the pool's counters not recorded at any of 1 points MISSED", l.String())
}

// observed is v with measured futile wake-ups and the model's prediction
// given the kernel's observables.
func observed(v validation, measured float64, predicted int) validation {
	v.MeasuredFutile, v.Observed, v.ObservedFutile = measured, true, predicted
	return v
}

func TestCheckFutileNeedsEightyPercentWithinThirty(t *testing.T) {
	v := val(workerpool.MutexNormal, 2, 8, 10, 10)
	var vals []validation
	for range 4 {
		vals = append(vals, observed(v, 100, 125)) // within ±30%
	}
	vals = append(vals, observed(v, 100, 140)) // not
	l := checkFutile(vals)
	assert.Equal(t, "check 2 (futile wake-ups given the kernel's observables): 4 of 5 points within ±30% (80%, need 80%) PASSED", l.String())
	vals = append(vals, observed(v, 100, 60))
	assert.Equal(t, "check 2 (futile wake-ups given the kernel's observables): 4 of 6 points within ±30% (67%, need 80%) MISSED",
		checkFutile(vals).String())
}

func TestCheckFutileSaysWhenObservablesAreMissing(t *testing.T) {
	l := checkFutile([]validation{val(workerpool.MutexNormal, 2, 8, 10, 10)})
	assert.False(t, l.Passed)
	assert.Contains(t, l.String(), "observables not recorded at any of 1 points")
	assert.True(t, strings.HasSuffix(l.String(), " MISSED"))
}

// enveloped is v with the envelopes' lower bounds perLow and batchLow
// (their upper bounds are val's predictions).
func enveloped(v validation, perLow, batchLow float64) validation {
	v.PerJobLow, v.BatchLow = perLow, batchLow
	return v
}

func TestCheckEnvelopeCountsPointsBetweenTheBounds(t *testing.T) {
	in := enveloped(val(workerpool.MutexNormal, 2, 8, 100, 300), 1050, 990) // perjob 1100 in [1050, 1300], batch 1000 in [990, 1000]
	out := enveloped(val(workerpool.MutexNormal, 2, 8, 100, 300), 1200, 990)
	var vals []validation
	for range 9 {
		vals = append(vals, in)
	}
	vals = append(vals, out)
	assert.Equal(t, "check 3 (pause envelope): 9 of 10 points inside, allowing each mean 1.96 standard errors (90%, need 90%); "+
		"jobs priced by the run's own serial collections at 0 points PASSED", checkEnvelope(vals).String())
	assert.Equal(t, "check 3 (pause envelope): 9 of 11 points inside, allowing each mean 1.96 standard errors (82%, need 90%); "+
		"jobs priced by the run's own serial collections at 0 points MISSED", checkEnvelope(append(vals, out)).String())
}

// TestInsideAllowsTheMeansStandardErrors: a mean outside a bound by less
// than 1.96 standard errors of the difference is inside; by more, not;
// the prediction's own relative error widens the allowance.
func TestInsideAllowsTheMeansStandardErrors(t *testing.T) {
	assert.True(t, inside(1000, 0, 1000, 1000, 0), "an exact mean on a line")
	assert.False(t, inside(1001, 0, 1000, 1000, 0), "no error: no allowance")
	assert.True(t, inside(1019, 10, 1000, 1000, 0), "1.9 standard errors above")
	assert.False(t, inside(1021, 10, 1000, 1000, 0), "2.1 above")
	assert.False(t, inside(979, 10, 1000, 1100, 0), "2.1 below the lower bound")
	assert.True(t, inside(1025, 10, 1000, 1000, 0.01), "hypot(10, 10) = 14.1 µs: 1.77 standard errors")
	assert.True(t, inside(1050, 1, 1100, 1000, 0), "bounds in either order")
}

func TestReferenceOfReadsTheRunsSerialCollections(t *testing.T) {
	r, err := report.NewRun(report.Host{Hostname: "h", Cores: 2}, []report.ModeInput{
		{Name: "serial", Pauses: []float64{900, 1100, 1000, 1000}}, {Name: "perjob", Pauses: []float64{1200, 1300}}})
	require.NoError(t, err)
	_, ok := referenceOf(r)
	assert.False(t, ok, "no job counters")
	r.Modes[0].CounterMeans = map[string]float64{"jobs": 10, "job_mean_us": 90, "card_prep_us": 60, "nursery_reset_us": 40}
	ref, ok := referenceOf(r)
	require.True(t, ok)
	assert.Equal(t, reference{Jobs: 900 * time.Microsecond, Outside: 100 * time.Microsecond, RelSE: r.Modes[0].Summary.Stdev / 2 / 1000}, ref)
	w := pausemodel.Work{Roots: 50 * time.Microsecond, Major: []time.Duration{0, 200 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond},
		Outside: 7 * time.Microsecond, Each: []pausemodel.Work{{Roots: 50 * time.Microsecond, Major: []time.Duration{0, 200 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond}}}}
	at := ref.at(w)
	assert.Equal(t, 900*time.Microsecond, at.Serial(), "the jobs at the reference's cost")
	assert.Equal(t, 900*time.Microsecond, at.Each[0].Serial(), "each collection's too")
	assert.Equal(t, 100*time.Microsecond, at.Outside)
	_, ok = referenceOf(report.Run{Modes: r.Modes[1:]})
	assert.False(t, ok, "no serial mode")
}

func TestCheckOneCoreJudgesOneCoreUpToEightWorkers(t *testing.T) {
	good := []validation{val(workerpool.MutexNormal, 1, 4, 100, 110), val(workerpool.MutexPI, 1, 8, 200, 190),
		val(workerpool.MutexPI, 1, 16, 200, 900), val(workerpool.MutexPI, 2, 8, 200, 900)} // the last two are not judged
	l := checkOneCore(good)
	assert.True(t, l.Passed, l.String())
	assert.Contains(t, l.String(), "check 4 (one core): 2 points up to 8 workers, mean absolute error 10 µs, 7% of the mean measured difference")
	bad := append(good, val(workerpool.MutexNormal, 1, 2, 100, 300))
	assert.False(t, checkOneCore(bad).Passed)
	assert.True(t, strings.HasSuffix(checkOneCore(nil).String(), " MISSED"))
}

func TestKernelOfReadsTheObservablesByKey(t *testing.T) {
	means := map[string]float64{keyCollectorPreemptions: 3, keyOnCollectorCPU: 1, keyElsewhere: 3, keyAsleepOnMutex: 5.9, keyAsleepOnCond: 2.1}
	k, ok := kernelOf(means, 8)
	require.True(t, ok)
	assert.Equal(t, pausemodel.Kernel{Preemption: pausemodel.PreemptMeasured, Preemptions: 3, Placed: true, OnCollectorCPU: 0.25, AsleepOnMutex: 6}, k)
	delete(means, keyAsleepOnCond)
	delete(means, keyAsleepOnMutex)
	k, ok = kernelOf(means, 8)
	require.True(t, ok, "the snapshot's counts are optional")
	assert.Zero(t, k.AsleepOnMutex, "no snapshot: the model starts with no sleeper on the mutex")
	delete(means, keyElsewhere)
	_, ok = kernelOf(means, 8)
	assert.False(t, ok, "placement missing: not recorded")
}

// TestValidateFeedsTheObservablesIn: a point whose perjob run carries the
// kernel's observables gets the model's futile wake-ups with them; the
// same point without them is not observed; both get the envelope.
func TestValidateFeedsTheObservablesIn(t *testing.T) {
	w := pausemodel.Work{Roots: 5 * time.Microsecond, Major: []time.Duration{0, 400 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond}}
	c := pausemodel.Costs{WakeToRun: 20 * time.Microsecond, WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 8 * time.Microsecond, Enqueue: 2 * time.Microsecond, Push: 100, Take: 400}
	p, ok := readPoint(point("native", "normal", 4))
	require.True(t, ok)
	run := func(means map[string]float64) report.Run {
		r, err := report.NewRun(report.Host{Hostname: "h", Cores: 1}, []report.ModeInput{
			{Name: "perjob", Pauses: []float64{100, 120}}, {Name: "batch", Pauses: []float64{90, 100}}})
		require.NoError(t, err)
		r.Modes[0].CounterMeans = means
		return r
	}
	pr := predictor{}
	bare, ok, err := pr.validate(p, run(nil), c, w)
	require.NoError(t, err)
	require.True(t, ok)
	assert.False(t, bare.Observed)
	assert.Equal(t, gcsim.JobCount(4), bare.Jobs)
	assert.Equal(t, bare.Jobs+1, bare.PredictedBroadcasts)
	assert.LessOrEqual(t, bare.PerJobLow, bare.PredictedPerJob, "no preemption: the shorter perjob pause on one core")
	assert.LessOrEqual(t, bare.PredictedPerJob, bare.PerJobHigh, "the model's own rules are a corner of the envelope")
	assert.LessOrEqual(t, bare.BatchLow, bare.PredictedBatch)
	assert.LessOrEqual(t, bare.PredictedBatch, bare.BatchHigh)
	never, ok, err := pr.validate(p, run(map[string]float64{keyCollectorPreemptions: 0, keyOnCollectorCPU: 100, keyElsewhere: 0,
		keyAsleepOnMutex: 0, keyAsleepOnCond: 4}), c, w)
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, never.Observed)
	assert.Less(t, never.ObservedFutile, bare.PredictedFutile, "no measured preemption on one core: no herd")
}

// TestValidatePointsPricesJobsByTheRunsSerialCollections: of two runs of
// one point, the one whose serial collections cost twice as much is
// predicted with twice the job costs; a run without serial collections
// keeps the heap's measured costs.
func TestValidatePointsPricesJobsByTheRunsSerialCollections(t *testing.T) {
	w := pausemodel.Work{Roots: 50 * time.Microsecond, Major: []time.Duration{0, 200 * time.Microsecond}, LOS: []time.Duration{0, 150 * time.Microsecond},
		Outside: 10 * time.Microsecond}
	c := pausemodel.Costs{WakeToRun: 20 * time.Microsecond, WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 8 * time.Microsecond, Enqueue: 2 * time.Microsecond, Push: 100, Take: 400}
	run := func(serialJobs float64, serial bool) report.Run {
		modes := []report.ModeInput{{Name: "perjob", Pauses: []float64{900, 1000}}, {Name: "batch", Pauses: []float64{800, 900}}}
		if serial {
			modes = append([]report.ModeInput{{Name: "serial", Pauses: []float64{700, 800, 750}}}, modes...)
		}
		r, err := report.NewRun(report.Host{Hostname: "h", Cores: 1}, modes)
		require.NoError(t, err)
		if serial {
			r.Modes[0].CounterMeans = map[string]float64{"jobs": 17, "job_mean_us": serialJobs / 17, "card_prep_us": 30, "nursery_reset_us": 5}
		}
		return r
	}
	r := point("native", "normal", 2)
	r.Runs = []report.Run{run(400, true), run(800, true), run(0, false)}
	vals, err := validatePoints(map[workerpool.MutexKind]pausemodel.Costs{workerpool.MutexNormal: c}, []*report.Report{r},
		func(gcsim.Config) (pausemodel.Work, error) { return w, nil }, nil)
	require.NoError(t, err)
	require.Len(t, vals, 3)
	byRef := map[bool][]validation{}
	for _, v := range vals {
		byRef[v.Referenced] = append(byRef[v.Referenced], v)
	}
	require.Len(t, byRef[true], 2)
	require.Len(t, byRef[false], 1)
	lo, hi := byRef[true][0], byRef[true][1]
	if lo.PredictedBatch > hi.PredictedBatch {
		lo, hi = hi, lo
	}
	// On one core the batch pause is the outside work, the jobs and the
	// dispatch: twice the jobs add the serial sum once more.
	assert.InDelta(t, 400, hi.PredictedBatch-lo.PredictedBatch, 40, "%v vs %v", lo.PredictedBatch, hi.PredictedBatch)
	assert.Greater(t, lo.PredictionRelSE, 0.0)
	assert.Zero(t, byRef[false][0].PredictionRelSE)
	assert.InDelta(t, 35-10, lo.PredictedBatch-byRef[false][0].PredictedBatch, 1,
		"the same jobs at the heap's costs (the serial sum is theirs): the difference is the outside work's")
}

func TestInsideLabelNamesTheMeansInside(t *testing.T) {
	v := enveloped(val(workerpool.MutexNormal, 2, 8, 100, 300), 1050, 990) // perjob 1100 in [1050, 1300], batch 1000 in [990, 1000]
	assert.Equal(t, "both", insideLabel(v))
	v.PerJobLow = 1200
	assert.Equal(t, "batch", insideLabel(v))
	v.BatchLow, v.BatchHigh = 1100, 1100
	assert.Equal(t, "neither", insideLabel(v))
	v.PerJobLow = 1000
	assert.Equal(t, "perjob", insideLabel(v))
}

// TestValidatePointsCarriesTheSlowdownsSpread: on two cores the
// prediction's relative standard error combines the serial reference's
// and the slowdown's, in quadrature.
func TestValidatePointsCarriesTheSlowdownsSpread(t *testing.T) {
	w := pausemodel.Work{Roots: 50 * time.Microsecond, Major: []time.Duration{0, 200 * time.Microsecond}, LOS: []time.Duration{0, 150 * time.Microsecond}}
	c := pausemodel.Costs{WakeToRun: 20 * time.Microsecond, WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 8 * time.Microsecond, Enqueue: 2 * time.Microsecond, Push: 100, Take: 400}
	r := point("native", "normal", 2)
	run, err := report.NewRun(report.Host{Hostname: "h", Cores: 2}, []report.ModeInput{{Name: "serial", Pauses: []float64{700, 800, 750}},
		{Name: "perjob", Pauses: []float64{900, 1000}}, {Name: "batch", Pauses: []float64{800, 900}}})
	require.NoError(t, err)
	run.Modes[0].CounterMeans = map[string]float64{"jobs": 17, "job_mean_us": 400.0 / 17, "card_prep_us": 30, "nursery_reset_us": 5}
	r.Runs = []report.Run{run}
	vals, err := validatePoints(map[workerpool.MutexKind]pausemodel.Costs{workerpool.MutexNormal: c}, []*report.Report{r},
		func(gcsim.Config) (pausemodel.Work, error) { return w, nil },
		func(gcsim.Config, int) (Slowdown, error) { return Slowdown{F: 1.1, RelSE: 0.04}, nil })
	require.NoError(t, err)
	require.Len(t, vals, 1)
	ref, ok := referenceOf(run)
	require.True(t, ok)
	assert.InDelta(t, math.Hypot(ref.RelSE, 0.04), vals[0].PredictionRelSE, 1e-12)
}
