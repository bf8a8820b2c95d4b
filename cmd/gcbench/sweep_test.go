package main

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweepTiny is a 4-point grid small enough for tests.
func sweepTiny(dir string, extra ...string) []string {
	return sweepGrid(dir, "1,2", "broadcast,targeted", "12", extra...)
}

func sweepGrid(dir, workers, wakes, gcs string, extra ...string) []string {
	return append([]string{"sweep", "--dir", dir, "--workers", workers, "--wake", wakes,
		"--major-heap", "64MiB", "--los", "16MiB", "--nursery", "256KiB", "--gcs", gcs, "--warmup", "1"}, extra...)
}

// gridPoint is the first point of the grid the sweep args
// (as sweepGrid builds them) ask for.
func gridPoint(t *testing.T, args []string) *runOptions {
	t.Helper()
	o, err := parseSweepFlags(args[1:], io.Discard)
	require.NoError(t, err)
	return o.points()[0]
}

func TestSweepWritesOnePointPerFileAndResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points") // created by the sweep
	stdout, stderr, code := runBinary(t, sweepTiny(dir, "--shard", "1/2")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "4 points in the grid, 2 in this shard still to run")
	assert.ElementsMatch(t, []string{"workers2-broadcast-threads-major64MiB-los16MiB.json",
		"workers2-targeted-threads-major64MiB-los16MiB.json"}, names(t, dir), "shard 1/2: every second point")

	stdout, stderr, code = runBinary(t, sweepTiny(dir)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "4 points in the grid, 2 in this shard still to run", "the saved points are skipped")
	assert.Len(t, names(t, dir), 4)
	stdout, _, code = runBinary(t, sweepTiny(dir)...)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "0 in this shard still to run")

	plot := filepath.Join(t.TempDir(), "scaling.png")
	stdout, stderr, code = runBinary(t, "report", dir, "--plot", plot)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "scaling of batch against perjob (4 points)")
	lines := strings.Split(stdout, "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "broadcast ") || strings.HasPrefix(l, "targeted ") {
			rows = append(rows, strings.Join(strings.Fields(l)[:2], " "))
		}
	}
	assert.Equal(t, []string{"broadcast 1", "broadcast 2", "targeted 1", "targeted 2"}, rows)
	f, err := os.Open(plot)
	require.NoError(t, err)
	defer f.Close()
	_, err = png.Decode(f)
	assert.NoError(t, err)
}

func TestSweepNeverOverwritesWhatItCannotAccountFor(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "12")...)
	require.Equal(t, 0, code, stderr)
	point := filepath.Join(dir, "workers1-broadcast-threads-major64MiB-los16MiB.json")
	before := snap(t, point)

	_, stderr, code = runBinary(t, sweepGrid(dir, "1", "broadcast", "13")...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, `gcs=12, this sweep asks 13`)
	before.assertUnchanged(t)

	require.NoError(t, os.WriteFile(point, []byte("not a report"), 0o644))
	_, stderr, code = runBinary(t, sweepGrid(dir, "1", "broadcast", "12")...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "move it away")
	assert.Equal(t, "not a report", readString(t, point))
}

// TestSweepTellsALockedCollectorApart: --lock-collector is part of a
// point's configuration, recorded only when set, so a sweep with it does
// not take a point made without it for done, nor the other way round.
func TestSweepTellsALockedCollectorApart(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "12", "--lock-collector")...)
	require.Equal(t, 0, code, stderr)
	point := filepath.Join(dir, "workers1-broadcast-threads-major64MiB-los16MiB.json")
	r, err := report.ReadFile(context.Background(), point)
	require.NoError(t, err)
	assert.Equal(t, "locked-thread", r.Config.Value("collector"))
	before := snap(t, point)

	_, stderr, code = runBinary(t, sweepGrid(dir, "1", "broadcast", "12")...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, `lock_collector=true, this sweep asks false`)
	before.assertUnchanged(t)

	plain := t.TempDir()
	_, stderr, code = runBinary(t, sweepGrid(plain, "1", "broadcast", "12")...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runBinary(t, sweepGrid(plain, "1", "broadcast", "12", "--lock-collector")...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, `lock_collector=false, this sweep asks true`)
}

func TestSweepHelpDocumentsEveryFlag(t *testing.T) {
	stdout, stderr, code := runBinary(t, "sweep", "--help")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"--dir", "--workers", "--wake", "--backend", "--major-heap", "--los", "--nursery",
		"--gcs", "--warmup", "--modes", "--seed", "--gomaxprocs", "--lock-collector", "--shard"} {
		assert.Contains(t, stdout, want)
	}
}

func TestSweepBadUsage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, args := range [][]string{
		{"sweep"},
		{"sweep", "--dir", dir, "--shard", "2/2"},
		{"sweep", "--dir", dir, "--shard", "x"},
		{"sweep", "--dir", dir, "--workers", "0"},
		{"sweep", "--dir", dir, "--workers", "2,2"},
		{"sweep", "--dir", dir, "--wake", "shout"},
		{"sweep", "--dir", dir, "--modes", "batch"},
		{"sweep", "--dir", dir, "--major-heap", "64MiB", "--workers", "4096"},
		{"sweep", "--dir", filepath.Join(file, "sub")},
		{"sweep", "--dir", dir, "extra"},
	} {
		stdout, stderr, code := runBinary(t, args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Empty(t, stdout, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", args, stderr)
	}
}

// TestConcurrentSweepsNeverReplaceEachOthersPoints: two sweeps of one
// point into one directory, with other settings, at once. The one that
// saves second finds the point there and fails, keeping its own report in
// the temporary directory; the file is the first one's, whole.
func TestConcurrentSweepsNeverReplaceEachOthersPoints(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	type outcome struct {
		gcs, stderr string
		code        int
	}
	gcs := []string{"40", "41"}
	var sweeps []*testwait.Child
	var stderrs [2]strings.Builder
	for i := range gcs {
		cmd := exec.Command(gcbenchBin, sweepGrid(dir, "1", "broadcast", gcs[i])...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		cmd.Stderr = &stderrs[i]
		sweeps = append(sweeps, testwait.Start(t, cmd))
	}
	var results []outcome
	for i, sweep := range sweeps { // both run meanwhile: the order of the waits does not matter
		err := sweep.Wait(runBound)
		code := 0
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		results = append(results, outcome{gcs[i], stderrs[i].String(), code})
	}
	var won []string
	for _, r := range results {
		switch r.code {
		case 0:
			won = append(won, r.gcs)
		default:
			assert.Equal(t, 1, r.code, r.stderr)
			if kept := regexp.MustCompile(`saved in (\S+) instead`).FindStringSubmatch(r.stderr); kept != nil {
				assert.Regexp(t, `file (already )?exists`, r.stderr, "it lost the race to save")
				done, err := pointDone(context.Background(), kept[1], gridPoint(t, sweepGrid(dir, "1", "broadcast", r.gcs)))
				require.NoError(t, err)
				assert.True(t, done, "the loser's report is kept whole")
			} else {
				assert.Contains(t, r.stderr, "was made with gcs=", "it started after the winner had saved")
			}
		}
	}
	require.Len(t, won, 1, "exactly one sweep saves the point")
	point := filepath.Join(dir, "workers1-broadcast-threads-major64MiB-los16MiB.json")
	done, err := pointDone(context.Background(), point, gridPoint(t, sweepGrid(dir, "1", "broadcast", won[0])))
	require.NoError(t, err)
	assert.True(t, done, "the point file is the winner's")
	assert.Len(t, names(t, dir), 1, "no temporary file is left in the directory")
}

// TestSweepRefusesAHeapTheMachineCannotHold: each size fits the available
// memory but their sum does not; the sweep refuses it before any point,
// as run does, rather than failing on it hours in.
func TestSweepRefusesAHeapTheMachineCannotHold(t *testing.T) {
	avail := heap.AvailableMemory()
	require.Positive(t, avail, "available memory is known on Linux")
	each := strconv.FormatInt(avail*2/3>>20, 10) + "MiB"
	dir := filepath.Join(t.TempDir(), "points")
	stdout, stderr, code := runBinary(t, "sweep", "--dir", dir, "--major-heap", each, "--los", each)
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "available memory")
	assert.NoDirExists(t, dir, "refused before the directory was made")
}

// TestSweepGoesOnAfterAPointFails: a point whose heap fills up is not
// saved, and says so, but the sweep runs the points after it, saves them
// and exits 1 naming the failed one.
func TestSweepGoesOnAfterAPointFails(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runBinary(t, "sweep", "--dir", dir, "--workers", "1", "--wake", "broadcast",
		"--major-heap", "28MiB,64MiB", "--los", "16MiB", "--gcs", "200", "--warmup", "2")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "point workers1-broadcast-threads-major28MiB-los16MiB failed, not saved: gcsim: major heap full")
	assert.Contains(t, stderr, "1 of the 2 points run failed and were not saved: workers1-broadcast-threads-major28MiB-los16MiB")
	assert.Equal(t, []string{"workers1-broadcast-threads-major64MiB-los16MiB.json"}, names(t, dir))
}

// TestCommandsRefuseToPrintIntoTheirInputs: standard output redirected
// into a sweep's saved point, predict's point or trace's input is refused
// before any work, and the file is left as it was.
func TestCommandsRefuseToPrintIntoTheirInputs(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	point := filepath.Join(dir, "workers1-broadcast-threads-major64MiB-los16MiB.json")
	tr := filepath.Join(t.TempDir(), "t.gctrace")
	_, stderr, code = runBinary(t, append(slices.Clone(runTiny), "--trace", tr, "--out", filepath.Join(t.TempDir(), "r.txt"))...)
	require.Equal(t, 0, code, stderr)
	for _, tc := range []struct {
		file string
		args []string
	}{
		{point, sweepGrid(dir, "1,2", "broadcast", "3")},
		{point, []string{"predict", "--dir", dir}},
		{tr, []string{"trace", tr}},
	} {
		before, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		f, err := os.OpenFile(tc.file, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		var errOut bytes.Buffer
		cmd := exec.Command(gcbenchBin, tc.args...)
		cmd.Stdout, cmd.Stderr = f, &errOut
		err = testwait.Run(t, cmd, runBound)
		f.Close()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", tc.args, errOut.String())
		assert.Equal(t, 2, exit.ExitCode(), "%v: %s", tc.args, errOut.String())
		assert.Contains(t, errOut.String(), "standard output /dev/stdout", "%v", tc.args)
		after, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		assert.Equal(t, before, after, "%v: the input is as it was", tc.args)
	}
}

// TestAPointSavedMeanwhileBySameSettingsIsNotKeptTwice: when another sweep
// with the same settings saved the point first, this one's copy is not
// left in the temporary directory, and it is told apart from a save.
func TestAPointSavedMeanwhileBySameSettingsIsNotKeptTwice(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, stderr, code := runBinary(t, sweepGrid(dir, "1", "broadcast", "3")...)
	require.Equal(t, 0, code, stderr)
	o, err := parseSweepFlags(sweepGrid(dir, "1", "broadcast", "3")[1:], io.Discard)
	require.NoError(t, err)
	p := o.points()[0]
	path := filepath.Join(dir, p.name()+".json")
	e := &env{stdout: io.Discard, stderr: io.Discard, temps: new(outfile.Set)}
	err = runPoint(context.Background(), e, p, path, nil) // as if it had started before the other saved
	assert.ErrorIs(t, err, errSavedByAnother)
	kept, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, kept, "no copy of a point already in --dir")
}
