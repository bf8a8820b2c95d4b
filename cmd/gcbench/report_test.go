package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

const (
	reportA     = "testdata/report-a.json"
	reportB     = "testdata/report-b.json"
	reportOther = "testdata/report-other-config.json"
)

func TestReportRoundTripsJSON(t *testing.T) {
	stdout, stderr, code := runBinary(t, "report", "--format", "json", reportA)
	require.Equal(t, 0, code, stderr)
	want, err := os.ReadFile(reportA)
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout, "report --format json must reproduce a saved report byte for byte")
}

func TestReportText(t *testing.T) {
	stdout, stderr, code := runBinary(t, "report", reportA)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	for _, want := range []string{"host: bench-a", "TrimMean 25%", "batch vs perjob", "p-value"} {
		assert.Contains(t, stdout, want)
	}
}

func TestReportMergesHosts(t *testing.T) {
	stdout, stderr, code := runBinary(t, "report", "--format", "csv", reportA, reportB)
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"statistic",
		"bench-a/serial", "bench-a/perjob", "bench-a/batch",
		"bench-a/batch vs serial improvement %", "bench-a/batch vs perjob improvement %",
		"bench-b/serial", "bench-b/perjob", "bench-b/batch",
		"bench-b/batch vs serial improvement %", "bench-b/batch vs perjob improvement %", "config", "host"}, recs[0])
	assert.Equal(t, recs[1][1], recs[1][6], "same samples on both hosts, same stdev")
}

func TestReportWritesFilesAndPlots(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "merged.csv"), filepath.Join(dir, "pauses.png")
	stdout, stderr, code := runBinary(t, "report", "--out", out, "--plot", plot, reportA, reportB)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "--out takes the report off standard output")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	_, err = csv.NewReader(strings.NewReader(string(data))).ReadAll()
	require.NoError(t, err, "--out FILE.csv picks CSV")
	f, err := os.Open(plot)
	require.NoError(t, err)
	defer f.Close()
	_, err = png.Decode(f)
	require.NoError(t, err)
}

func TestReportFailures(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "no files"},
		{[]string{"--format", "xml", reportA}, 2, "--format"},
		{[]string{"--plot", "p.gif", reportA}, 2, "--plot"},
		{[]string{"--bogus", reportA}, 2, "--bogus"},
		{[]string{"testdata/missing.json"}, 1, "missing.json"},
		{[]string{"main.go"}, 1, "main.go"},
		{[]string{reportA, reportOther}, 1, "gcs"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runBinary(t, append([]string{"report"}, tt.args...)...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, stderr)
		assert.Empty(t, stdout, "%v", tt.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line, got %q", tt.args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "gcbench report: "), "%v: %q", tt.args, stderr)
		assert.Contains(t, stderr, tt.want, "%v", tt.args)
	}
}

// TestReportIsStrict: every input is one whole report, given once, whose
// modes are the configuration's; each refusal is one line naming the file.
func TestReportIsStrict(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(reportA)
	require.NoError(t, err)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	trailing := write("trailing.json", string(good)+"garbage\n")
	twice := write("twice.json", string(good)+string(good))
	copied := write("copy.json", string(good))
	fresh, stderr, code := runBinary(t, tiny("--format", "json")...)
	require.Equal(t, 0, code, stderr)
	renamed := write("renamed.json", strings.Replace(fresh, `"name": "batch"`, `"name": "bulk"`, 1))
	require.NotEqual(t, fresh, readString(t, renamed), "a run's JSON names its batch mode")
	for _, tt := range []struct {
		args       []string
		code       int
		want, file string
	}{
		{[]string{trailing}, 1, "more data after", trailing},
		{[]string{twice}, 1, "more data after", twice},
		{[]string{reportA, reportA}, 2, "same file", reportA},
		{[]string{reportA, copied}, 1, "same run twice", ""},
		{[]string{renamed}, 1, "configuration says modes=", renamed},
	} {
		stdout, stderr, code := runBinary(t, append([]string{"report"}, tt.args...)...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, stderr)
		assert.Empty(t, stdout)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line, got %q", tt.args, stderr)
		assert.Contains(t, stderr, tt.want)
		assert.Contains(t, stderr, tt.file)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestReportHelp(t *testing.T) {
	stdout, _, code := runBinary(t, "report", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "usage: gcbench report")
	assert.Contains(t, stdout, "--plot FILE.png")
	assert.Contains(t, stdout, "--html FILE")
	assert.Contains(t, stdout, "--format bench")
}

// writeRepeatedRuns writes three runs of reporttest's configuration on
// its machine into dir, run i's batch pauses scaled by 1, 0.9 and 1.1,
// and returns their paths.
func writeRepeatedRuns(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	for i, s := range []float64{1, 0.9, 1.1} {
		in := reporttest.Inputs()
		for j := range in[2].Pauses {
			in[2].Pauses[j] *= s
		}
		run, err := report.NewRun(reporttest.Machine, in)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, report.NewReport("minor-collection pause", reporttest.Config, run).WriteJSON(&b))
		p := filepath.Join(dir, fmt.Sprintf("run%d.json", i+1))
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
		paths = append(paths, p)
	}
	return paths
}

// TestReportRunsSummarizesRepeatedRuns: report --runs leads with the
// runs summary (a line per comparison, a row per run, median, range and
// interval), then prints the median run's report; its JSON is the
// summary.
func TestReportRunsSummarizesRepeatedRuns(t *testing.T) {
	runs := writeRepeatedRuns(t, t.TempDir())
	stdout, stderr, code := runBinary(t, append([]string{"report", "--runs", "--format", "markdown"}, runs...)...)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `(?m)^\*\*batch vs perjob over 3 runs: median [0-9.]+% shorter \(runs [0-9.]+–[0-9.]+%, 95% bootstrap interval [0-9.]+–[0-9.]+%\)\*\*$`, stdout)
	for _, row := range []string{"| run 1 |", "| run 2 |", "| run 3 |", "| median |", "| range |", "| bootstrap interval |"} {
		assert.Contains(t, stdout, row)
	}
	summary, median, ok := strings.Cut(stdout, "### gcbench: minor-collection pause")
	require.True(t, ok, "the median run's report follows the summary:\n%s", stdout)
	assert.Contains(t, summary, "the median run (run 1,")
	assert.Contains(t, median, "**batch vs perjob: pauses", "the median run's own verdict")

	js, stderr, code := runBinary(t, append([]string{"report", "--runs", "--format", "json"}, runs...)...)
	require.Equal(t, 0, code, stderr)
	var s report.RunsSummary
	require.NoError(t, json.Unmarshal([]byte(js), &s))
	assert.Equal(t, report.RunsSchema, s.Schema)
	assert.Equal(t, runs, s.Sources)
	require.Len(t, s.Comparisons, 2)
	assert.Len(t, s.Comparisons[1].Runs, 3)
}

func TestReportRunsFailures(t *testing.T) {
	runs := writeRepeatedRuns(t, t.TempDir())
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{reportA, reportOther}, 1, "gcs"},
		{[]string{reportA, reportB}, 1, "bench-b"},
		{[]string{reportA}, 1, "at least two runs"},
		{append([]string{"--format", "csv"}, runs...), 2, "csv"},
		{append([]string{"--plot", filepath.Join(t.TempDir(), "p.png")}, runs...), 2, "--plot"},
		{[]string{writeSweeps(t, []string{"1"}, 1)[0], runs[0]}, 2, "not both"},
	} {
		stdout, stderr, code := runBinary(t, append([]string{"report", "--runs"}, tt.args...)...)
		assert.Equal(t, tt.code, code, "%v: %s", tt.args, stderr)
		assert.Empty(t, stdout, "%v", tt.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line, got %q", tt.args, stderr)
		assert.Contains(t, stderr, tt.want, "%v", tt.args)
	}
}

// writeSweeps writes len(scales) sweeps of points at the given workers
// into directories under dir, sweep i's batch pauses scaled by
// scales[i], and returns the directories.
func writeSweeps(t *testing.T, workers []string, scales ...float64) []string {
	t.Helper()
	var dirs []string
	for i, s := range scales {
		d := filepath.Join(t.TempDir(), fmt.Sprintf("sweep%d", i+1))
		require.NoError(t, os.Mkdir(d, 0o755))
		for _, w := range workers {
			in := reporttest.Inputs()
			for j := range in[2].Pauses {
				in[2].Pauses[j] *= s
			}
			run, err := report.NewRun(reporttest.Machine, in)
			require.NoError(t, err)
			config := report.Config{{Key: "gcs", Value: "200"}, {Key: "modes", Value: "serial,perjob,batch"}, {Key: "workers", Value: w}}
			var b bytes.Buffer
			require.NoError(t, report.NewReport("minor-collection pause", config, run).WriteJSON(&b))
			require.NoError(t, os.WriteFile(filepath.Join(d, "w"+w+".json"), b.Bytes(), 0o644))
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// TestReportRunsOfSweeps: report --runs of three sweep directories gives
// per point each sweep's ratio, their median and range; sweeps of other
// grids are refused.
func TestReportRunsOfSweeps(t *testing.T) {
	dirs := writeSweeps(t, []string{"1", "2"}, 1, 0.9, 1.1)
	stdout, stderr, code := runBinary(t, append([]string{"report", "--runs", "--format", "markdown"}, dirs...)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "### gcbench: scaling of batch against perjob, 3 sweeps of one grid (2 points)")
	assert.Contains(t, stdout, "| workers | run 1 TrimMean 10% batch/perjob | run 2 TrimMean 10% batch/perjob | run 3 TrimMean 10% batch/perjob | median batch/perjob | range |")
	assert.Regexp(t, `(?m)^\| 2 \| 0\.\d{3} \| 0\.\d{3} \| 0\.\d{3} \| 0\.\d{3} \| 0\.\d{3}–0\.\d{3} \|$`, stdout)

	other := append(writeSweeps(t, []string{"1", "2"}, 1, 0.9), writeSweeps(t, []string{"1", "4"}, 1.1)...)
	stdout, stderr, code = runBinary(t, append([]string{"report", "--runs"}, other...)...)
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "workers=4")
}
