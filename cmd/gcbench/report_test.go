package main

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
