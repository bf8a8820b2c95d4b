package modelcheck

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// val is a validation of a point of workers on cores under kind k,
// measured diff and predicted pdiff perjob − batch (µs).
func val(k workerpool.MutexKind, cores, workers int, diff, pdiff float64) validation {
	p, ok := readPoint(point("native", k.String(), workers))
	if !ok {
		panic("bad point")
	}
	return validation{sweepPoint: p, Host: "h", Cores: cores,
		MeasuredPerJob: 1000 + diff, MeasuredBatch: 1000, PredictedPerJob: 1000 + pdiff, PredictedBatch: 1000,
		PerJobHigh: 1000 + pdiff, BatchHigh: 1000}
}

func config(backend, mutex string, workers int) report.Config {
	c := report.Config{{Key: "major_heap", Value: "64MiB"}, {Key: "los", Value: "16MiB"}, {Key: "nursery", Value: "4MiB"},
		{Key: "workers", Value: strconv.Itoa(workers)}, {Key: "backend", Value: backend}, {Key: "wake", Value: "broadcast"}}
	if mutex != "" {
		c = append(c, report.Pair{Key: "mutex", Value: mutex})
	}
	return append(c, report.Pair{Key: "seed", Value: "1"}, report.Pair{Key: report.ConfigModes, Value: "perjob,batch"})
}

// point is a sweep point's report with the typed settings config shows.
func point(backend, mutex string, workers int, edit ...func(*gcsim.Experiment)) *report.Report {
	e := gcsim.Experiment{Config: gcsim.DefaultConfig(), Modes: []gcsim.Mode{gcsim.PerJob, gcsim.Batch}, GCs: 10}
	c := &e.Config
	c.MajorHeap, c.LOS, c.Nursery, c.Seed, c.Workers, c.Wake = 64<<20, 16<<20, 4<<20, 1, workers, workerpool.Broadcast
	c.Backend, _ = workerpool.ParseBackend(backend)
	c.Mutex = workerpool.MutexNormal
	if mutex != "" {
		c.Mutex, _ = workerpool.ParseMutexKind(mutex)
	}
	for _, f := range edit {
		f(&e)
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	return &report.Report{Schema: report.Schema, Config: config(backend, mutex, workers), Settings: b}
}

func TestReadPoint(t *testing.T) {
	p, ok := readPoint(point("native", "pi", 8))
	require.True(t, ok)
	assert.Equal(t, workerpool.MutexPI, p.Mutex)
	assert.Equal(t, 8, p.Config.Workers)
	assert.Equal(t, int64(64<<20), p.Config.MajorHeap)
	_, ok = readPoint(point("threads", "", 2))
	assert.True(t, ok, "a Go backend's point is read, to be shown beside")
	v1 := point("native", "pi", 2)
	v1.Schema, v1.Settings = report.SchemaV1, nil
	for name, r := range map[string]*report.Report{
		"adaptive mutex": point("native", "adaptive", 2),
		"targeted":       point("native", "pi", 2, func(e *gcsim.Experiment) { e.Config.Wake = workerpool.Targeted }),
		"no batch":       point("native", "pi", 2, func(e *gcsim.Experiment) { e.Modes = []gcsim.Mode{gcsim.Serial, gcsim.PerJob} }),
		"bad heap":       point("native", "pi", 2, func(e *gcsim.Experiment) { e.Config.LOS = 1 }),
		"version 1":      v1,
	} {
		_, ok := readPoint(r)
		assert.False(t, ok, name)
	}
}

// TestJudgeAddsTheFloor: two points, one measured twice. Measured 100,
// 140 (mean 120) and 400; predicted 120 and 300. Error: (20+20+100)/3 µs,
// 140 of 640 = 21.9%; the floor 40 of 240 = 16.7%: met, 21.9 ≤ 20 + 16.7.
// Without the repeat (no floor) it is missed.
func TestJudgeAddsTheFloor(t *testing.T) {
	vals := []validation{val(workerpool.MutexPI, 2, 8, 100, 120), val(workerpool.MutexPI, 2, 8, 140, 120), val(workerpool.MutexPI, 2, 16, 400, 300)}
	j := judge(vals)
	assert.InDelta(t, 140.0/3, j.MAE, 1e-9)
	assert.InDelta(t, 100*140.0/640, j.Rel, 1e-9)
	assert.Equal(t, floor{Points: 1, Replicas: 2, MAE: 20, Rel: 100 * 40.0 / 240}, j.Floor)
	assert.True(t, j.Met)
	assert.False(t, judge(vals[1:]).Met, "no repeat, no floor: %+v", judge(vals[1:]))
}

// TestFloorKeepsLockedCollectorsApart: the same grid point measured with
// and without a locked collector thread is two points, not a repeat.
func TestFloorKeepsLockedCollectorsApart(t *testing.T) {
	locked := val(workerpool.MutexPI, 2, 8, 140, 120)
	locked.LockCollector = true
	assert.Equal(t, floor{}, measurementFloor([]validation{val(workerpool.MutexPI, 2, 8, 100, 120), locked}))
}

// TestPoolableRefusesUntypedAndMixedPoints: a version-1 point, or points
// made with and without --lock-collector, cannot be pooled; the error
// names the points by their Source.
func TestPoolableRefusesUntypedAndMixedPoints(t *testing.T) {
	lock := func(e *gcsim.Experiment) { e.LockCollector = true }
	a, b, c := point("native", "pi", 2), point("native", "pi", 4), point("native", "pi", 8, lock)
	a.Source, b.Source, c.Source = "a.json", "b.json", "c.json"
	require.NoError(t, Poolable([]*report.Report{a, b}))
	err := Poolable([]*report.Report{a, b, c})
	assert.ErrorIs(t, err, ErrMixedCollectors)
	assert.EqualError(t, err, "a.json was made with lock_collector=false, c.json with true: "+ErrMixedCollectors.Error())
	bad := point("native", "pi", 2, func(e *gcsim.Experiment) { e.Config.LOS = 1 })
	assert.NoError(t, Poolable([]*report.Report{bad, c}), "settings that do not read are left to Validate")
	v1 := point("native", "pi", 2)
	v1.Schema, v1.Settings, v1.Source = report.SchemaV1, nil, "v1.json"
	err = Poolable([]*report.Report{a, v1})
	assert.ErrorIs(t, err, gcsim.ErrNoSettings)
	assert.Contains(t, err.Error(), "v1.json: ")
}

func TestFutileOKTakesTheWiderOfToleranceAndRange(t *testing.T) {
	assert.True(t, futileOK(130, 100, 100, 100), "within 30%")
	assert.False(t, futileOK(131, 100, 100, 100))
	assert.True(t, futileOK(200, 100, 60, 210), "within the measured range")
	assert.False(t, futileOK(0, 10, 8, 12))
	vals := []validation{val(workerpool.MutexPI, 1, 8, 1, 1), val(workerpool.MutexPI, 1, 8, 1, 1)}
	vals[0].MeasuredFutile, vals[1].MeasuredFutile = 100, 300
	vals[0].PredictedFutile, vals[1].PredictedFutile = 280, 280
	ok, all := futileHits(vals)
	assert.Equal(t, 2, ok, "280 is in the repeats' range 100–300 though 180% above the first")
	assert.Equal(t, 2, all)
}

func TestErrorBreakdownByCoresAndMutex(t *testing.T) {
	vals := []validation{val(workerpool.MutexNormal, 2, 8, 100, 150), val(workerpool.MutexPI, 2, 8, 300, 300), val(workerpool.MutexPI, 1, 8, 1000, 0)}
	sortValidations(vals)
	assert.Equal(t, []int{2, 1}, coreCounts(vals))
	assert.Equal(t, "The same per core count and mutex kind: 2 cores 12% (normal 50%, pi 0%); 1 core 100% (pi 100%).", errorBreakdown(vals))
}

func TestPartsTableAveragesEachRow(t *testing.T) {
	a, b := val(workerpool.MutexPI, 2, 2, 10, 10), val(workerpool.MutexPI, 2, 4, 10, 10)
	a.MeasuredParts, a.PredictedParts = [3]float64{10, 20, math.NaN()}, [3]float64{1, 2, 3}
	b.MeasuredParts, b.PredictedParts = [3]float64{30, 40, math.NaN()}, [3]float64{3, 4, 5}
	tab := partsTable([]validation{a, b})
	require.Len(t, tab.Rows, 1)
	assert.Equal(t, []string{"2", "pi", "2", "0%", "20", "2", "30", "3", "", "4"}, tab.Rows[0])
}

// TestWorkerTimesTableAveragesTheCountedPoints: a shape's row averages
// the measured and predicted workers' times over its points that counted
// them, a point without the counters is left out, and with none at all
// there is no table.
func TestWorkerTimesTableAveragesTheCountedPoints(t *testing.T) {
	counted := func(cpu, wait float64) map[string]float64 {
		return map[string]float64{"worker_cpu_us": cpu, "worker_wait_us": wait}
	}
	a, b, c := val(workerpool.MutexNormal, 2, 2, 0, 0), val(workerpool.MutexNormal, 2, 2, 0, 0), val(workerpool.MutexNormal, 2, 2, 0, 0)
	a.PerJobMeans, a.BatchMeans = counted(100, 10), counted(200, 20)
	b.PerJobMeans, b.BatchMeans = counted(300, 30), counted(400, 40)
	b.PerJobMeans["other_cpu_us"], b.BatchMeans["other_cpu_us"] = 7, 9 // only b counted the others' CPU
	a.PredictedWorkerTimes = [2]workerTimes{{CPU: 1, Wait: 2}, {CPU: 3, Wait: 4}}
	b.PredictedWorkerTimes = [2]workerTimes{{CPU: 3, Wait: 4}, {CPU: 5, Wait: 6}}
	a.PredictedBatchWaitAtTick, b.PredictedBatchWaitAtTick = 50, 70
	c.PerJobMeans, c.BatchMeans = counted(1e6, 1e6), nil // batch not counted: left out
	c.PredictedWorkerTimes = [2]workerTimes{{CPU: 1e6, Wait: 1e6}, {CPU: 1e6, Wait: 1e6}}
	tab := workerTimesTable([]validation{a, b, c})
	require.NotNil(t, tab)
	require.Len(t, tab.Rows, 1)
	assert.Equal(t, []string{"2", "normal", "2", "2", "200", "2", "20", "3", "300", "4", "30", "5", "60", "7", "9"}, tab.Rows[0])
	assert.Nil(t, workerTimesTable([]validation{c}))
}

func TestGoRuntimeTableIsTheGapToNative(t *testing.T) {
	p, _ := readPoint(point("threads", "", 8))
	gos := []goPoint{{sweepPoint: p, Host: "h", Cores: 2, PerJob: 1500, Batch: 1000}}
	vals := []validation{val(workerpool.MutexPI, 2, 8, 800, 0), val(workerpool.MutexPI, 2, 8, 600, 0), val(workerpool.MutexNormal, 2, 8, 100, 0)}
	tab := goRuntimeTable(gos, vals)
	require.Len(t, tab.Rows, 1)
	assert.Equal(t, []string{"threads", "8", "2", "500", "0.667", "0.0", "100", "400", "700", "-200"}, tab.Rows[0])
}

func TestFactsTableBounds(t *testing.T) {
	tab := factsTable([]int{8})
	require.Len(t, tab.Rows, 3)
	assert.Equal(t, []string{"8", "65", "perjob", "66", "67 + 1 per Join wake-up", "65 + 1 per wake-up", "0 to 528"}, tab.Rows[0])
	assert.Equal(t, "0 to 16", tab.Rows[1][6])
	assert.Equal(t, "0 to 8", tab.Rows[2][6])
}

// TestManyCoreRangeAndDecider: the grid's 12 points and each calibrated
// cost's two ends; a single ratio is printed only for a narrow range, and
// SGen's figures only on the 8-core rows.
func TestManyCoreRangeAndDecider(t *testing.T) {
	w := pausemodel.Work{Roots: 5 * time.Microsecond, Major: []time.Duration{0, 400 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond}}
	median := pausemodel.Costs{WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 10 * time.Microsecond, Take: 400}
	runs := []pausemodel.Costs{median, median}
	runs[1].Futile = 14 * time.Microsecond
	p, err := predictManyCore(median, runs, w, 8, workerpool.MutexPI)
	require.NoError(t, err)
	assert.Len(t, p.Ratios, len(gridWakeToRun)*len(gridWakeIdle)+2*len(calibratedFields))
	assert.Contains(t, p.Ratios, p.Base)
	assert.NotEmpty(t, p.Decides)
	narrow := manyCore{Cores: 8, Ratios: []float64{0.70, 0.75}, Base: 0.72, Futile: []int{1}}
	wide := manyCore{Cores: 16, Ratios: []float64{0.2, 0.9}, Base: 0.5, Futile: []int{1}}
	tab := manyCoreTable([]manyCore{narrow, wide}, "x")
	assert.Equal(t, "0.720", tab.Rows[0][6])
	assert.Contains(t, tab.Rows[0][7], "0.734")
	assert.Empty(t, tab.Rows[1][6], "a range of 0.7 gets no single ratio")
	assert.Empty(t, tab.Rows[1][7])
	assert.Equal(t, "0.200–0.900", tab.Rows[1][3], "the range of batch/perjob")
}

// TestOnWorkersScalesOnMoreThanOneCore: on one core the jobs keep their
// serial costs; on more, the slowdown measured on as many threads as the
// point has workers scales them; its error is passed on; nil is a factor
// of 1.
func TestOnWorkersScalesOnMoreThanOneCore(t *testing.T) {
	w := pausemodel.Work{Roots: 10 * time.Microsecond, Major: []time.Duration{0, 100 * time.Microsecond},
		LOS: []time.Duration{0, 50 * time.Microsecond}, Outside: 7 * time.Microsecond}
	var asked []int
	slow := func(_ gcsim.Config, k int) (Slowdown, error) {
		asked = append(asked, k)
		return Slowdown{F: 2, RelSE: 0.03}, nil
	}
	cfg := gcsim.DefaultConfig()
	cfg.Workers = 8
	one, relSE, err := onWorkers(w, slow, cfg, 1)
	require.NoError(t, err)
	assert.Equal(t, w, one)
	assert.Zero(t, relSE)
	assert.Empty(t, asked, "one core: nothing to measure")
	two, relSE, err := onWorkers(w, slow, cfg, 2)
	require.NoError(t, err)
	assert.Equal(t, 2*w.Serial(), two.Serial())
	assert.Equal(t, w.Outside, two.Outside)
	assert.Equal(t, 0.03, relSE, "the factor's uncertainty is the prediction's")
	cfg.Workers = 1
	_, _, err = onWorkers(w, slow, cfg, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{8, 1}, asked, "measured on the point's worker count")
	same, _, err := onWorkers(w, nil, cfg, 2)
	require.NoError(t, err)
	assert.Equal(t, w, same)
	_, _, err = onWorkers(w, func(gcsim.Config, int) (Slowdown, error) { return Slowdown{}, errors.New("no pool") }, cfg, 2)
	assert.ErrorContains(t, err, "no pool")
}

// TestSlowdownOfTakesTheMedianAndTheRunsSpread: the factor is the runs'
// median, its relative standard error their standard deviation over √n
// and their mean; one run has no spread, and none is a factor of 1.
func TestSlowdownOfTakesTheMedianAndTheRunsSpread(t *testing.T) {
	s := SlowdownOf([]float64{1.3, 1.1, 1.2})
	assert.Equal(t, 1.2, s.F)
	assert.InDelta(t, 0.1/math.Sqrt(3)/1.2, s.RelSE, 1e-12)
	assert.Equal(t, Slowdown{F: 1.4}, SlowdownOf([]float64{1.4}))
	assert.Equal(t, Slowdown{F: 1}, SlowdownOf(nil))
}

// TestMemoSlowdownMeasuresEachHeapAndConcurrencyOnce: repeats are
// recalled; another concurrency or heap is measured; errors are not kept.
func TestMemoSlowdownMeasuresEachHeapAndConcurrencyOnce(t *testing.T) {
	calls := 0
	fail := true
	slow := memoSlowdown(func(gcsim.Config, int) (Slowdown, error) {
		calls++
		if fail {
			fail = false
			return Slowdown{}, errors.New("once")
		}
		return Slowdown{F: 1.2}, nil
	})
	cfg := gcsim.DefaultConfig()
	_, err := slow(cfg, 2)
	require.Error(t, err)
	for range 3 {
		f, err := slow(cfg, 2)
		require.NoError(t, err)
		assert.Equal(t, Slowdown{F: 1.2}, f)
	}
	_, _ = slow(cfg, 1)
	cfg.LOS *= 2
	_, _ = slow(cfg, 2)
	assert.Equal(t, 4, calls)
	assert.Nil(t, memoSlowdown(nil))
}
