package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPredictChecksTheModelThenPredicts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepTiny(dir, "--modes", "perjob,batch,startbatch")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--major-heap", "64MiB", "--los", "16MiB", "--cores", "4,8",
		"--calibration-gcs", "3", "--calibrations", "2")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"calibration on", "median of 2 runs", "calibration runs' range", "wake-to-run", "per idle CPU woken",
		"model check: measured vs predicted mean pause (µs), perjob − batch", "Mean absolute error of perjob−batch",
		"model check: measured vs predicted mean pause (µs), perjob − startbatch", "Mean absolute error of perjob−startbatch",
		"model check by part of the pause: perjob − batch", "model check by part of the pause: perjob − startbatch",
		"prediction at the seed's shape (64MiB + 16MiB", "SGen, 8 cores"} {
		assert.Contains(t, stdout, want)
	}
	checks, prediction, ok := strings.Cut(stdout, "prediction at the seed's shape")
	require.True(t, ok)
	batch, startbatch, ok := strings.Cut(checks, "perjob − startbatch")
	require.True(t, ok, "batch's check first")
	for _, check := range []string{batch, startbatch} {
		rows := 0
		for _, l := range strings.Split(check, "\n") {
			if strings.HasPrefix(l, "broadcast ") || strings.HasPrefix(l, "targeted ") {
				rows++
			}
		}
		assert.Equal(t, 4, rows, "one row per sweep point:\n%s", check)
	}
	assert.Contains(t, batch, "(goal ≤ 20%", "batch's check has the goal")
	assert.NotContains(t, startbatch, "goal", "startbatch's has none")
	for _, c := range []string{"\n4 ", "\n8 "} {
		assert.Contains(t, prediction, c, "a row per --cores")
	}
	assert.Contains(t, prediction, "startbatch/perjob", "StartBatch is predicted too")
	assert.Contains(t, prediction, "batch/perjob by run", "two calibration runs: the ratio's range over them")
	for _, check := range []string{batch, startbatch} {
		assert.Contains(t, check, "With each calibration run's own costs instead of their medians: ")
	}
}

// Points the model cannot be checked against (here serial against
// perjob) are refused before the calibration runs: one line, nothing on
// stdout.
func TestPredictRefusesPointsWithoutBatchBeforeCalibrating(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepGrid(dir, "2", "broadcast", "3", "--modes", "serial,perjob")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout, "no calibration was printed")
	assert.Contains(t, stderr, "no point with perjob and batch or startbatch")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
}

// TestPredictRefusesASweepGivenTwice: the same points twice would pass
// for a repeated sweep that agrees with itself to the microsecond.
func TestPredictRefusesASweepGivenTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--dir", dir+"/.")
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, stdout, "refused before calibrating")
	assert.Contains(t, stderr, "give each input once")
}

// TestPredictRefusesLockedAndUnlockedPointsTogether: points made with and
// without --lock-collector measure two systems; predict will not pool
// them in one check, and says so before calibrating.
func TestPredictRefusesLockedAndUnlockedPointsTogether(t *testing.T) {
	plain, locked := t.TempDir(), t.TempDir()
	_, stderr, code := runBinary(t, sweepGrid(plain, "1", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runBinary(t, sweepGrid(locked, "1", "broadcast", "3", "--lock-collector")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", plain, "--dir", locked)
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, stdout, "refused before calibrating")
	assert.Contains(t, stderr, "--lock-collector apart")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
}

func TestPredictBadUsage(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"predict"}, 2},
		{[]string{"predict", "--dir", empty}, 2},
		{[]string{"predict", "--dir", empty, "--cores", "0"}, 2},
		{[]string{"predict", "--dir", empty, "--calibrations", "0"}, 2},
		{[]string{"predict", "--dir", filepath.Join(empty, "missing")}, 1},
		{[]string{"predict", "--dir", empty, "--format", "json"}, 2},
		{[]string{"predict", "--dir", empty, "--major-heap", "100KiB"}, 2},
		{[]string{"predict", "--dir", empty, "--major-heap", "1TiB", "--los", "1TiB"}, 2},
	} {
		stdout, stderr, code := runBinary(t, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Empty(t, stdout, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", tc.args, stderr)
	}
}

func TestValidationsSortByCoresWakeWorkers(t *testing.T) {
	v := func(cores int, wake, workers string) validation {
		return validation{Cores: cores, Config: map[string]string{"wake": wake, "workers": workers}}
	}
	vals := []validation{v(1, "broadcast", "2"), v(2, "targeted", "1"), v(2, "broadcast", "16"), v(2, "broadcast", "2")}
	sortValidations(vals)
	var got []string
	for _, x := range vals {
		got = append(got, fmt.Sprintf("%d/%s/%s", x.Cores, x.Config["wake"], x.Config["workers"]))
	}
	assert.Equal(t, []string{"2/broadcast/2", "2/broadcast/16", "2/targeted/1", "1/broadcast/2"}, got)
}

func TestValidationTableGivesTheErrorPerCoreCountAndWakePolicy(t *testing.T) {
	v := func(cores int, wake string, perjob, batch, predPerjob, predBatch float64) validation {
		return validation{Cores: cores, Config: map[string]string{"wake": wake, "workers": "8"}, Batched: "batch",
			MeasuredPerJob: perjob, MeasuredBatch: batch, PredictedPerJob: predPerjob, PredictedBatch: predBatch}
	}
	// Two cores: measured 100 (broadcast) and 300 (targeted), predicted 150 and 300
	// (error 50 of 400: 12.5%; broadcast 50%, targeted 0%); one core: measured 1000,
	// predicted 0 (100%); together 1050 of 1400: 75%.
	tab := validationTable([]validation{v(2, "broadcast", 1100, 1000, 1150, 1000), v(2, "targeted", 1300, 1000, 1300, 1000),
		v(1, "broadcast", 2000, 1000, 1000, 1000)}, []float64{42, 84.4, 77.6})
	notes := strings.Join(tab.Notes, "\n")
	assert.Contains(t, notes, "350 µs, 75% of the mean measured difference (goal ≤ 20%: MISSED)")
	assert.Contains(t, notes, "The same per core count and wake policy: 2 cores 12% (broadcast 50%, targeted 0%); 1 core 100% (broadcast 100%).")
	assert.Contains(t, notes, "With each calibration run's own costs instead of their medians: 42%, 84%, 78%.")

	other := v(2, "broadcast", 1300, 1000, 1300, 1000)
	other.Config["workers"] = "16" // another point, not the first measured again
	one := validationTable([]validation{v(2, "broadcast", 1100, 1000, 1150, 1000), other}, nil)
	assert.Len(t, one.Notes, 1, "one core count, one policy, one calibration run: the overall error is the only one")
	assert.NotContains(t, tab.Title, "collector=")

	locked := v(2, "broadcast", 1100, 1000, 1150, 1000)
	locked.Config["collector"] = lockedCollector
	assert.Contains(t, validationTable([]validation{locked}, nil).Title, "(points measured with collector=locked-thread)")
}

// TestMeasurementFloorIsTheSpreadOfRepeatedPoints: a point measured
// twice with differences 100 and 300 deviates 100 from its mean each
// time, 200 of 400 (50%); a point measured once is no evidence of spread
// and is left out, and so are points that differ in anything but when
// they ran.
func TestMeasurementFloorIsTheSpreadOfRepeatedPoints(t *testing.T) {
	v := func(cores int, workers string, diff float64) validation {
		return validation{Cores: cores, Config: map[string]string{"wake": "broadcast", "workers": workers}, Batched: "batch",
			MeasuredPerJob: 1000 + diff, MeasuredBatch: 1000}
	}
	points, replicas, mae, rel := measurementFloor([]validation{v(2, "8", 100), v(2, "8", 300), v(2, "16", 5000), v(1, "8", 700)})
	assert.Equal(t, 1, points)
	assert.Equal(t, 2, replicas)
	assert.InDelta(t, 100, mae, 1e-9)
	assert.InDelta(t, 50, rel, 1e-9)

	points, _, _, _ = measurementFloor([]validation{v(2, "8", 100), v(1, "8", 300)})
	assert.Zero(t, points, "one measurement per point: no floor")
	assert.Empty(t, floorNote([]validation{v(2, "8", 100), v(2, "16", 300)}))

	// One core: 1000 and 1400 (200 of 2400 each way: 400/2400); two cores as above.
	note := floorNote([]validation{v(2, "8", 100), v(2, "8", 300), v(1, "8", 1000), v(1, "8", 1400)})
	assert.Contains(t, note, "Measurement floor: 2 points measured 4 times in all")
	assert.Contains(t, note, "by 150 µs on average, 21% (2 cores 50%, 1 core 17%) of the mean measured difference")

	tab := validationTable([]validation{v(2, "8", 100), v(2, "8", 300)}, nil)
	assert.Contains(t, strings.Join(tab.Notes, "\n"), "Measurement floor: 1 point measured 2 times")

	other := v(2, "8", 300)
	other.Host = "another machine"
	points, _, _, _ = measurementFloor([]validation{v(2, "8", 100), other})
	assert.Zero(t, points, "the same grid point on two machines is two points, not one measured twice")
}

// TestPartsTableAveragesEachPartPerCoreCountAndWake: two broadcast points
// on two cores average part by part; the one-core point has its own row.
func TestPartsTableAveragesEachPartPerCoreCountAndWake(t *testing.T) {
	v := func(cores int, measured, predicted [3]float64) validation {
		return validation{Cores: cores, Config: map[string]string{"wake": "broadcast", "workers": "8"}, Batched: "batch",
			MeasuredParts: measured, PredictedParts: predicted}
	}
	tab := partsTable([]validation{v(2, [3]float64{100, 50, 0}, [3]float64{10, 20, 2}), v(2, [3]float64{300, 150, 4}, [3]float64{30, 0, 0}),
		v(1, [3]float64{1000, 7, -3}, [3]float64{500, 0, 1})})
	assert.Equal(t, []string{"cores", "wake", "points", "to the first job", "predicted to the first job", "job span", "predicted job span",
		"join", "predicted join"}, tab.Header[0])
	require.Len(t, tab.Rows, 2)
	assert.Equal(t, []string{"2", "broadcast", "2", "200", "20", "100", "10", "2", "1"}, tab.Rows[0])
	assert.Equal(t, []string{"1", "broadcast", "1", "1000", "500", "7", "0", "-3", "1"}, tab.Rows[1])

	// A point from before the anatomy counts in none of the measured means.
	nan := math.NaN()
	old := partsTable([]validation{v(2, [3]float64{100, nan, nan}, [3]float64{10, 20, 2}), v(2, [3]float64{nan, nan, nan}, [3]float64{30, 0, 0})})
	assert.Equal(t, []string{"2", "broadcast", "2", "100", "20", "", "10", "", "1"}, old.Rows[0])
}

func TestFmtRange(t *testing.T) {
	assert.Equal(t, "0.883–1.000", fmtRange([]float64{1, 0.8834, 0.95}, 3))
	assert.Equal(t, "1.000", fmtRange([]float64{1.0001, 0.9999}, 3), "equal once formatted: one value")
}

// TestRunErrorsKeepEachModesPoints: each batched mode's error per run is
// its own points', whichever mode is asked for first.
func TestRunErrorsKeepEachModesPoints(t *testing.T) {
	v := func(batched string, measured, predicted float64) validation {
		return validation{Batched: batched, Config: map[string]string{}, MeasuredPerJob: 1000 + measured, MeasuredBatch: 1000,
			PredictedPerJob: 1000 + predicted, PredictedBatch: 1000}
	}
	byRun := [][]validation{
		{v("batch", 100, 50), v("startbatch", 200, 200)},
		{v("batch", 100, 100), v("startbatch", 200, 100)},
	}
	assert.Equal(t, []float64{50, 0}, runErrors(byRun, "batch"))
	assert.Equal(t, []float64{0, 50}, runErrors(byRun, "startbatch"))
	assert.Equal(t, []float64{50, 0}, runErrors(byRun, "batch"), "asking leaves byRun as it was")
}

// TestPredictCSVIsTables: with --format csv standard output is CSV alone,
// one table after another (a blank line between), and the calibration
// lines go to standard error.
func TestPredictCSVIsTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--major-heap", "64MiB", "--los", "16MiB", "--cores", "4",
		"--calibration-gcs", "1", "--calibrations", "1", "--format", "csv")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "gcbench predict: calibration on")
	assert.NotContains(t, stdout, "calibration on")
	tables := strings.Split(strings.TrimSpace(stdout), "\n\n")
	require.Len(t, tables, 3, "the check, the check by part, the prediction:\n%s", stdout)
	for _, table := range tables {
		recs, err := csv.NewReader(strings.NewReader(table)).ReadAll()
		require.NoError(t, err, table)
		assert.Greater(t, len(recs), 1, "a header and rows:\n%s", table)
	}
}
