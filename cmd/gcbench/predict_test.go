package main

import (
	"encoding/csv"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func skipWithoutNative(t *testing.T) {
	t.Helper()
	if !workerpool.NativeAvailable {
		t.Skip("predict calibrates the native backend, which needs cgo on Linux")
	}
}

// nativeGrid is a tiny native sweep of both mutex kinds and a threads
// point beside them.
func nativeGrid(dir string, extra ...string) []string {
	return sweepGrid(dir, "1,2", "broadcast", "6", append([]string{"--backend", "native,threads", "--mutex", "normal,pi"}, extra...)...)
}

func TestPredictChecksTheModelThenPredicts(t *testing.T) {
	skipWithoutNative(t)
	dir, again := filepath.Join(t.TempDir(), "points"), filepath.Join(t.TempDir(), "again")
	for _, d := range []string{dir, again} {
		_, stderr, code := runBinary(t, nativeGrid(d)...)
		require.Equal(t, 0, code, stderr)
	}
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--dir", again, "--major-heap", "64MiB", "--los", "16MiB",
		"--cores", "4,8", "--calibration-gcs", "2", "--calibrations", "2")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"calibration of the native pool, normal mutex", "calibration of the native pool, pi mutex",
		"median of 2 runs", "calibration runs' range (pi)",
		"model check against the native backend", "Mean absolute error of perjob−batch", "(goal ≤ 20% + the measurement floor",
		"Measurement floor: 4 points measured 8 times", "Futile wake-ups per perjob collection, with the model's own kernel rules:",
		"With each calibration run's own costs instead of their medians: ",
		"model check by part of the pause", "the gap to native is the Go runtime's effect",
		"scenarios at the seed's shape (64MiB + 16MiB", "not validated on this host", "timing-free facts per collection"} {
		assert.Contains(t, stdout, want)
	}
	assertFourVerdicts(t, stdout)
	check, rest, ok := strings.Cut(stdout, "model check by part of the pause")
	require.True(t, ok)
	rows := 0
	for _, l := range strings.Split(check, "\n") {
		if strings.HasPrefix(l, "normal ") || strings.HasPrefix(l, "pi ") {
			rows++
		}
	}
	assert.Equal(t, 8, rows, "one row per native point and repeat, threads' left out:\n%s", check)
	goSide, prediction, ok := strings.Cut(rest, "scenarios at the seed's shape")
	require.True(t, ok)
	assert.Equal(t, 4, strings.Count(goSide, "\nthreads "), "the threads points, beside:\n%s", goSide)
	many, facts, ok := strings.Cut(prediction, "timing-free facts")
	require.True(t, ok)
	for _, c := range []string{"\n4 ", "\n8 "} {
		assert.Equal(t, 2, strings.Count(many, c), "a row per --cores and mutex kind:\n%s", many)
		assert.Equal(t, 3, strings.Count(facts, c), "a row per --cores and mode:\n%s", facts)
	}
	assert.Contains(t, many, "0.734 (TrimMean 10%)", "SGen's ratio beside the 8-core rows")
}

// Points the model cannot be checked against (no native point) are
// refused before the calibration runs: one line, nothing on stdout.
func TestPredictRefusesPointsWithoutNativeBeforeCalibrating(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepGrid(dir, "2", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout, "no calibration was printed")
	assert.Contains(t, stderr, "no native point with perjob and batch")
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

// TestPredictCSVIsTables: with --format csv standard output is CSV alone,
// one table after another (a blank line between), and the calibration
// lines go to standard error.
func TestPredictCSVIsTables(t *testing.T) {
	skipWithoutNative(t)
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "3", "--backend", "native")...)
	require.Equal(t, 0, code, stderr)
	html := filepath.Join(t.TempDir(), "p.html")
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--major-heap", "64MiB", "--los", "16MiB", "--cores", "4",
		"--calibration-gcs", "1", "--calibrations", "1", "--format", "csv", "--html", html)
	require.Equal(t, 0, code, stderr)
	page := readString(t, html) // --html: the same tables, and the calibration, on one page
	assert.Equal(t, 5, strings.Count(page, "<table>"), page)
	assert.Contains(t, page, "<dt>calibration, pi mutex</dt>")
	assert.Contains(t, stderr, "gcbench predict: calibration of the native pool")
	assert.NotContains(t, stdout, "calibration of")
	tables := strings.Split(strings.TrimSpace(stdout), "\n\n")
	require.Len(t, tables, 5, "the check, the check by part and by the workers' time, the prediction, the facts:\n%s", stdout)
	for _, table := range tables {
		recs, err := csv.NewReader(strings.NewReader(table)).ReadAll()
		require.NoError(t, err, table)
		assert.Greater(t, len(recs), 1, "a header and rows:\n%s", table)
	}
}

// verdictLine is what .ci/run counts: a check's line ending in its verdict.
var verdictLine = regexp.MustCompile(`^check [1-4] .*(PASSED|MISSED)$`)

// assertFourVerdicts: checks 1 to 4, one line each, in order, at the
// start of a line, each ending in PASSED or MISSED.
func assertFourVerdicts(t *testing.T, out string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if verdictLine.MatchString(l) {
			got = append(got, l[:len("check N")])
		}
	}
	assert.Equal(t, []string{"check 1", "check 2", "check 3", "check 4"}, got, "the verdict lines in:\n%s", out)
	check2 := regexp.MustCompile(`(?m)^check 2 \(futile wake-ups given the kernel's observables\): ` +
		`(observables not recorded at any of \d+ points .* MISSED|\d+ of \d+ points within ±30% .*(PASSED|MISSED))$`)
	assert.Regexp(t, check2, out, "check 2 says what it found, or that the observables were not recorded")
}

func TestQuickSweepsAlternateEveryCoreAndOneCPU(t *testing.T) {
	dirs, args, one := quickSweeps("/q")
	assert.Equal(t, []string{"/q/n2_1", "/q/n1_1", "/q/n2_2", "/q/n1_2"}, dirs)
	assert.Equal(t, []bool{false, true, false, true}, one)
	for i, a := range args {
		assert.Equal(t, []string{"sweep", "--dir", dirs[i], "--workers", "1,2,4,8"}, a[:5])
		assert.True(t, slices.Contains(a, "native") && slices.Contains(a, "normal,pi") && slices.Contains(a, "serial,perjob,batch"), "%v", a)
	}
}

func TestNativeGuardRefusesWithoutTheNativeBackend(t *testing.T) {
	assert.NoError(t, nativeGuard(true))
	assert.ErrorIs(t, nativeGuard(false), errNoNative)
	assert.Contains(t, nativeGuard(false).Error(), "the native backend is unavailable")
}

// TestPredictQuickWithoutNativeExitsOne runs in CI's step without cgo
// (its name matches that step's -run Native): predict --quick says the
// native backend is unavailable, exit status 1, before any sweep.
func TestPredictQuickWithoutNativeExitsOne(t *testing.T) {
	if workerpool.NativeAvailable {
		t.Skip("this build has the native backend; .ci/run's CGO_ENABLED=0 step runs this test")
	}
	stdout, stderr, code := runBinary(t, "predict", "--quick")
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "the native backend is unavailable")
}

func TestPredictQuickNeedsNoDir(t *testing.T) {
	_, stderr, code := runBinary(t, "predict")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--dir is required")
	assert.Contains(t, stderr, "--quick")
}
