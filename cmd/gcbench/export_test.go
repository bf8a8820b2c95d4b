package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
)

// readCSV reads a whole CSV file with encoding/csv's defaults: every
// record as wide as the first.
func readCSV(t *testing.T, data string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	require.NoError(t, err)
	return recs
}

// TestRunWritesEveryExport: one run writes the CSV pause table and its
// anatomy beside it, an HdrHistogram log that hdrhistogram-go reads back
// with every collection, and an HTML page.
func TestRunWritesEveryExport(t *testing.T) {
	dir := t.TempDir()
	out, hlog, html := filepath.Join(dir, "r.csv"), filepath.Join(dir, "p.hlog"), filepath.Join(dir, "r.html")
	stdout, stderr, code := runBinary(t, tiny("--modes", "perjob,batch", "--out", out, "--hdr-log", hlog, "--hdr-interval", "10", "--html", html)...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	pauses := readCSV(t, string(data))
	assert.Equal(t, []string{"statistic", "perjob", "batch", "batch vs perjob improvement %", "config", "host"}, pauses[0])
	assert.Equal(t, "host-GC disturbed", pauses[len(pauses)-1][0], "the pause table alone")
	data, err = os.ReadFile(filepath.Join(dir, "r.anatomy.csv"))
	require.NoError(t, err, "--out r.csv puts the anatomy in r.anatomy.csv")
	anatomy := readCSV(t, string(data))
	assert.Equal(t, []string{"row", "kind", "perjob", "batch", "batch vs perjob difference", "config", "host"}, anatomy[0])
	assert.Equal(t, "card preparation", anatomy[1][0])

	f, err := os.Open(hlog)
	require.NoError(t, err)
	defer f.Close()
	rd := hdrhistogram.NewHistogramLogReader(f)
	counts, intervals := map[string]int64{}, map[string]int{}
	for {
		h, err := rd.NextIntervalHistogram()
		require.NoError(t, err)
		if h == nil {
			break
		}
		counts[h.Tag()] += h.TotalCount()
		intervals[h.Tag()]++
	}
	assert.Equal(t, map[string]int64{"perjob": 24, "batch": 24}, counts, "every timed collection, tagged with its mode")
	assert.Equal(t, map[string]int{"perjob": 3, "batch": 3}, intervals, "24 collections in intervals of 10")

	data, err = os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<table>")
	assert.Equal(t, 4, strings.Count(string(data), "<svg "), "histograms, box plots, CDFs, anatomy")
}

// TestRunCSVOnStandardOutputIsOneTable: without --out, CSV is the pause
// table alone.
func TestRunCSVOnStandardOutputIsOneTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--modes", "batch", "--format", "csv")...)
	require.Equal(t, 0, code, stderr)
	recs := readCSV(t, stdout)
	assert.Len(t, recs, 1+15, "header, statistics, p-value, n, disturbed")
	assert.NotContains(t, stdout, "anatomy")
}

// TestRunBenchFormat: --format bench is one benchmark line per timed
// collection, which benchfmt reads, with the configuration as keys.
func TestRunBenchFormat(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--modes", "perjob,batch", "--format", "bench")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "\nBenchmarkPause/mode=perjob/workers=2 1 ")
	rd := benchfmt.NewReader(strings.NewReader(stdout), "a.txt")
	n := map[string]int{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		case *benchfmt.Result:
			n[rec.Name.String()]++
			assert.Equal(t, "64MiB", rec.GetConfig("major_heap"))
			_, ok := rec.Value("sec/op")
			assert.True(t, ok)
		}
	}
	require.NoError(t, rd.Err())
	assert.Equal(t, map[string]int{"Pause/mode=perjob/workers=2": 24, "Pause/mode=batch/workers=2": 24}, n)
}

// TestReportExportsOfASweep: a sweep's points in benchmark format carry
// their grid values; an HdrHistogram log of a sweep is refused before any
// work; the sweep's HTML links its points.
func TestReportExportsOfASweep(t *testing.T) {
	dir := t.TempDir()
	points := filepath.Join(dir, "points")
	require.NoError(t, os.Mkdir(points, 0o755))
	writeSweepPoints(t, points, "2", "8")
	stdout, stderr, code := runBinary(t, "report", "--format", "bench", points)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"BenchmarkPause/mode=serial/workers=2 1 ", "BenchmarkPause/mode=batch/workers=8 1 "} {
		assert.Contains(t, stdout, want)
	}
	assert.Equal(t, 2*600, strings.Count(stdout, "\nBenchmarkPause/"))

	_, stderr, code = runBinary(t, "report", "--hdr-log", filepath.Join(dir, "p.hlog"), points)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--hdr-log")
	assert.NoFileExists(t, filepath.Join(dir, "p.hlog"))

	// A sweep's CSV has no anatomy: nothing is written, or checked, beside it.
	require.NoError(t, os.Mkdir(filepath.Join(dir, "s.anatomy.csv"), 0o755))
	_, stderr, code = runBinary(t, "report", "--out", filepath.Join(dir, "s.csv"), points)
	require.Equal(t, 0, code, stderr)

	html := filepath.Join(dir, "s.html")
	_, stderr, code = runBinary(t, "report", "--html", html, points)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(data), `<a href="points/workers8.json">`, "a link to the point's file, relative to the page")
}

// TestExportPathsAreCheckedFirst: an output that cannot be written, the
// anatomy's included, is a usage error before any work.
func TestExportPathsAreCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "r.anatomy.csv"), 0o755))
	for _, args := range [][]string{
		{"--html", filepath.Join(dir, "missing", "r.html")},
		{"--hdr-log", filepath.Join(dir, "missing", "p.hlog")},
		{"--out", filepath.Join(dir, "r.csv")}, // its anatomy's path is a directory
		{"--hdr-interval", "0"},
		{"--html", filepath.Join(dir, "x"), "--hdr-log", filepath.Join(dir, "x")},
	} {
		_, stderr, code := runBinary(t, append([]string{"report"}, append(args, filepath.Join("testdata", "report-a.json"))...)...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
	}
	_, stderr, code := runBinary(t, "report", "--format", "yaml", filepath.Join("testdata", "report-a.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want text, markdown, csv, json or bench")
}

// TestAnatomyPath: the anatomy goes beside --out, except beside what is
// not a file of its own.
func TestAnatomyPath(t *testing.T) {
	for in, want := range map[string]string{"r.csv": "r.anatomy.csv", "d/R.CSV": "d/R.anatomy.csv", "r.txt": "r.txt.anatomy.csv",
		"": "", os.DevNull: ""} {
		assert.Equal(t, want, anatomyPath(in), in)
	}
}
