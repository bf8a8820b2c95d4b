package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTiny is a run small enough for tests: tens of MiB of heap, a few dozen
// collections per mode.
var runTiny = []string{"run", "--major-heap", "64MiB", "--los", "16MiB", "--nursery", "256KiB",
	"--gcs", "24", "--warmup", "2", "--workers", "2"}

func tiny(extra ...string) []string { return append(append([]string{}, runTiny...), extra...) }

func TestRunTextTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny()...)
	require.Equal(t, 0, code, stderr)
	// Off a terminal, no bar: the start line, and no progress line in a
	// run this short (one every 10 s at most).
	assert.Equal(t, "gcbench: 3 modes (serial, perjob, batch) × 26 collections (2 untimed, then 24 timed), interleaved, on 2 workers; "+
		"a 64MiB major heap + 16MiB LOS + 256KiB nursery: needs about 81 MiB of memory; progress every 10s\n", stderr)
	for _, want := range []string{"Stdev", "Avg", "TrimMean 10%", "TrimMean 25%", "Min", "Q1", "Q2", "Q3", "p90", "p99", "p99.9", "Max", "p-value",
		"batch vs serial", "batch vs perjob", "major_heap=64MiB", "gcs=24"} {
		assert.Contains(t, stdout, want)
	}
	assert.Regexp(t, `(?m)^config: backend=\w+ gcs=24 gomaxprocs=auto los=16MiB major_heap=64MiB modes=serial,perjob,batch `+
		`(mutex=pi )?nursery=256KiB seed=1 verify=false wake=broadcast warmup=2 workers=2$`, stdout, "sorted by key, as reports always showed it")
}

// TestRunPrintsThePauseAnatomy: the anatomy's parts add up to each mode's
// mean pause, and the dispatch counters say what each mode paid.
func TestRunPrintsThePauseAnatomy(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny()...)
	require.Equal(t, 0, code, stderr)
	_, anatomy, ok := strings.Cut(stdout, "pause anatomy")
	require.True(t, ok, stdout)
	row := func(label string) []string {
		for _, line := range strings.Split(anatomy, "\n") {
			if rest, ok := strings.CutPrefix(line, label+" "); ok {
				return strings.Fields(rest)
			}
		}
		t.Fatalf("no %q row in:\n%s", label, anatomy)
		return nil
	}
	sum, avg := row("sum of the parts"), row("mean pause (Avg)")
	assert.Equal(t, sum[:3], avg[:3], "serial, perjob and batch: the parts add up to the mean pause")
	assert.Equal(t, "17.0", row("enqueue-side lock acquisitions")[1], "perjob: one per job (2 workers: 17 jobs)")
	assert.Equal(t, "1.0", row("enqueue-side lock acquisitions")[2], "batch: one")
	for _, label := range []string{"card preparation", "dispatch: to the first job's start", "first-to-last job span",
		"join: last job's end to resume", "nursery reset", "futile wake-ups", "futex calls"} {
		row(label)
	}
}

func TestRunJSONAndReportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	saved, plot := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.png")
	stdout, stderr, code := runBinary(t, tiny("--out", saved, "--plot", plot)...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout, "--out takes the report off standard output")

	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	var doc struct {
		Schema string
		Config map[string]string
		Runs   []struct {
			Host struct {
				CPUModel   string `json:"cpu_model"`
				Cores      int
				GOMAXPROCS int
				GoVersion  string `json:"go_version"`
			}
			Modes []struct {
				Name           string
				Pauses         []float64 `json:"pauses_us"`
				Summary        map[string]any
				CounterMeans   map[string]float64 `json:"counter_means"`
				DisturbedCount *int               `json:"disturbed_count"`
			}
			Comparisons []struct {
				Base, New   string
				Improvement map[string]float64 `json:"improvement_pct"`
				P           *float64           `json:"p_value"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc), "run --out x.json writes JSON")
	assert.Equal(t, "gcbench/report/v2", doc.Schema)
	assert.Equal(t, "64MiB", doc.Config["major_heap"])
	require.Len(t, doc.Runs, 1)
	run := doc.Runs[0]
	assert.Positive(t, run.Host.Cores)
	assert.Positive(t, run.Host.GOMAXPROCS)
	assert.NotEmpty(t, run.Host.GoVersion)
	require.Len(t, run.Modes, 3)
	for i, m := range run.Modes {
		assert.Equal(t, []string{"serial", "perjob", "batch"}[i], m.Name)
		assert.Len(t, m.Pauses, 24)
		for _, p := range m.Pauses {
			assert.Positive(t, p)
		}
		assert.Contains(t, m.Summary, "trimmean25")
		assert.NotNil(t, m.DisturbedCount)
		assert.Positive(t, m.CounterMeans["jobs"], "%s ran jobs", m.Name)
		// Per-job completion records: durations, workers, load imbalance
		// (max busy / mean busy over the workers that ran jobs, ≥ 1).
		assert.Positive(t, m.CounterMeans["job_mean_us"], m.Name)
		assert.GreaterOrEqual(t, m.CounterMeans["job_max_us"], m.CounterMeans["job_mean_us"], m.Name)
		assert.GreaterOrEqual(t, m.CounterMeans["load_imbalance"], 1.0, m.Name)
		if m.Name == "serial" {
			assert.Equal(t, 1.0, m.CounterMeans["job_workers"], "serial runs every job inline")
			assert.Equal(t, 1.0, m.CounterMeans["load_imbalance"])
		} else {
			assert.GreaterOrEqual(t, m.CounterMeans["job_workers"], 1.0, m.Name)
			assert.LessOrEqual(t, m.CounterMeans["job_workers"], 2.0, m.Name)
			assert.LessOrEqual(t, m.CounterMeans["load_imbalance"], 2.0, "%s: at most the 2 workers", m.Name)
		}
	}
	require.Len(t, run.Comparisons, 2)
	assert.NotNil(t, run.Comparisons[0].P)

	f, err := os.Open(plot)
	require.NoError(t, err)
	defer f.Close()
	_, err = png.Decode(f)
	require.NoError(t, err, "--plot x.png writes a PNG")

	again, stderr, code := runBinary(t, "report", "--format", "json", saved)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, string(data), again, "report re-renders a saved run byte for byte")

	svg := filepath.Join(dir, "run.svg")
	_, stderr, code = runBinary(t, "report", "--plot", svg, saved)
	require.Equal(t, 0, code, stderr)
	svgData, err := os.ReadFile(svg)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(svgData))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "SVG is well-formed XML")
	}
	assert.Contains(t, string(svgData[:200]), "<svg")
}

func TestRunCSVAndMarkdown(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--format", "csv", "--modes", "perjob,batch", "--backend", "goroutines", "--wake", "targeted")...)
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"statistic", "perjob", "batch", "batch vs perjob improvement %", "config", "host"}, recs[0])
	for _, rec := range recs[1:9] { // the statistics rows are all numbers, then the configuration and host
		for _, cell := range rec[1 : len(rec)-2] {
			_, err := strconv.ParseFloat(cell, 64)
			assert.NoError(t, err, "row %s", rec[0])
		}
	}

	stdout, stderr, code = runBinary(t, tiny("--format", "markdown", "--modes", "serial,batch")...)
	require.Equal(t, 0, code, stderr)
	pauses, anatomy, ok := strings.Cut(stdout, "| part |")
	require.True(t, ok, "the anatomy table follows the pause table: %s", stdout)
	var rows []string
	for _, l := range strings.Split(pauses, "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 2+12+3, stdout) // header, rule, statistics, p-value, n, disturbed
	for _, l := range rows {
		assert.Equal(t, 5, strings.Count(l, "|"), l)
	}
	for _, l := range strings.Split(anatomy, "\n")[1:] {
		if strings.HasPrefix(l, "|") {
			assert.Equal(t, 6, strings.Count(l, "|"), "part, two modes, difference, share: %s", l)
		}
	}
}

// --verify checks the heap after every collection; a single mode gives a
// table without comparisons.
// TableStatisticsRows is the number of rows before "n" in the CSV grid:
// the header, the twelve statistics and the p-value.
const TableStatisticsRows = 1 + 12 + 1

func TestRunVerifyOneMode(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--verify", "--gcs", "3", "--warmup", "0", "--modes", "batch", "--format", "csv")...)
	require.Equal(t, 0, code, stderr)
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"statistic", "batch", "config", "host"}, recs[0])
	assert.Equal(t, []string{"n", "3"}, recs[TableStatisticsRows][:2])
}

func TestRunCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	_, stderr, code := runBinary(t, tiny("--modes", "batch", "--cpuprofile", prof)...)
	require.Equal(t, 0, code, stderr)
	fi, err := os.Stat(prof)
	require.NoError(t, err)
	assert.Positive(t, fi.Size())
}

func TestRunBadUsageExits2WithOneLine(t *testing.T) {
	tests := []struct {
		args       []string
		flag, text string
	}{
		{[]string{"--major-heap", "0"}, "--major-heap", `"0"`},
		{[]string{"--major-heap", "-1GiB"}, "--major-heap", "-1GiB"},
		{[]string{"--los", "1.5B"}, "--los", "1.5B"},
		{[]string{"--los", "2.5XB"}, "--los", "2.5XB"},
		{[]string{"--nursery", "lots"}, "--nursery", "lots"},
		{[]string{"--nursery", "65537B"}, "--nursery 65537B", "multiple of 4KiB"}, // gcsim's own check, reported against the flag
		{[]string{"--nursery", "200MiB"}, "--nursery 200MiB", "at most"},
		{[]string{"--workers", "4096"}, "--major-heap 64MiB", "at least"},
		{[]string{"--los", "1MiB"}, "--los 1MiB", "at least"},
		{[]string{"--workers", "5000"}, "--workers", "1 to 4096"},
		{[]string{"--modes", "serial,"}, "--modes", "empty item"},
		{[]string{"--modes", "BATCH,batch"}, "--modes", "twice"},
		{[]string{"--major-heap", "1000TiB"}, "--major-heap", "available memory"},
		{[]string{"--gcs", "0"}, "--gcs", `"0"`},
		{[]string{"--gcs", "many"}, "--gcs", "many"},
		{[]string{"--warmup", "-1"}, "--warmup", "-1"},
		{[]string{"--gcs", "9223372036854775807"}, "--gcs", "9223372036854775807"},
		{[]string{"--warmup", "9223372036854775807"}, "--warmup", "9223372036854775807"},
		{[]string{"--workers", "0"}, "--workers", `"0"`},
		{[]string{"--gomaxprocs", "-1"}, "--gomaxprocs", `"-1"`},
		{[]string{"--gomaxprocs", "100000"}, "--gomaxprocs", `"100000"`},
		{[]string{"--gomaxprocs", "two"}, "--gomaxprocs", "two"},
		{[]string{"--modes", "serial,bogus"}, "--modes", "bogus"},
		{[]string{"--modes", "batch,batch"}, "--modes", "twice"},
		{[]string{"--backend", "fibers"}, "--backend", "fibers"},
		{[]string{"--wake", "shout"}, "--wake", "shout"},
		{[]string{"--format", "xml"}, "--format", "xml"},
		{[]string{"--plot", "pauses.gif"}, "--plot", "pauses.gif"},
		{[]string{"--bogus"}, "--bogus", "unknown flag"},
		{[]string{"extra"}, "", "extra"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runBinary(t, tiny(tt.args...)...)
		assert.Equal(t, 2, code, "%v: %s", tt.args, stderr)
		assert.Empty(t, stdout, "%v", tt.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line, got %q", tt.args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "gcbench run: "), "%v: %q", tt.args, stderr)
		assert.Contains(t, stderr, tt.flag, "%v", tt.args)
		assert.Contains(t, stderr, tt.text, "%v", tt.args)
		assert.NotContains(t, stderr, "[running]", "%v: no Go panic", tt.args)
	}
	// The bare command is run: a bad flag without "run" names run too.
	_, stderr, code := runBinary(t, "--gcs", "0")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(stderr, "gcbench run: "), stderr)
}

func TestRunHelpDocumentsEveryFlag(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "-h"}} {
		stdout, stderr, code := runBinary(t, args...)
		require.Equal(t, 0, code, stderr)
		stdout = unwrapHelp(stdout)
		for _, want := range []string{
			"--major-heap size", "(default 2.5GiB)", "--los size", "(default 1GiB)", "--nursery size", "(default 4MiB)",
			"--workers int", "--gcs int", "(default 1500)", "--warmup int", "--modes list", "(default serial,perjob,batch)",
			"--backend name", "(default " + gcsim.DefaultConfig().Backend.String() + ")", "--mutex name", "(default pi)", "--wake name", "(default broadcast)", "--seed uint",
			"--verify", "--format format", "(default text)", "--out FILE", "--plot FILE.png", "--cpuprofile FILE", "--trace FILE",
			"--html FILE", "--hdr-log FILE", "--hdr-interval int", "(default 100)", "json or bench", "FILE.anatomy.csv",
			"--gomaxprocs int", "workers+1", "--lock-collector", "SGen's collector is one thread",
			"2.5GiB, 2560MiB", "microseconds",
		} {
			assert.Contains(t, stdout, want, "%v", args)
		}
	}
}

// TestRunTrace: run --trace writes a trace that gcbench trace reads whole —
// every collection and every job of every mode, events read + lost = the
// events the run wrote — and converts to Perfetto JSON.
func TestRunTrace(t *testing.T) {
	dir := t.TempDir()
	file, saved := filepath.Join(dir, "run.gctrace"), filepath.Join(dir, "run.json")
	const gcs, warmup, modes, jobs = 3, 1, 3, 17 // 2 workers: 1 + 8 + 8 jobs
	const collections = (gcs + warmup) * modes
	_, stderr, code := runBinary(t, tiny("--gcs", "3", "--warmup", "1", "--trace", file, "--out", saved)...)
	require.Equal(t, 0, code, stderr)

	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	var run struct {
		Runs []struct {
			Facts map[string]float64
		}
	}
	require.NoError(t, json.Unmarshal(data, &run))
	require.Len(t, run.Runs, 1)
	written := run.Runs[0].Facts["trace_events_written"]
	assert.Positive(t, written)

	stdout, stderr, code := runBinary(t, "trace", "--format", "json", file)
	require.Equal(t, 0, code, stderr)
	var sum struct {
		Report struct {
			Events uint64            `json:"events"`
			Lost   uint64            `json:"lost"`
			ByKind map[string]uint64 `json:"by_kind"`
		} `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum), stdout)
	r := sum.Report
	assert.Equal(t, written, float64(r.Events+r.Lost), "read + lost = written")
	assert.Equal(t, run.Runs[0].Facts["trace_events_dropped"], float64(r.Lost))
	// A few thousand events stay far below the 256 MiB budget: none lost.
	require.Zero(t, r.Lost)
	assert.Equal(t, uint64(collections), r.ByKind["collection-start"])
	assert.Equal(t, uint64(collections), r.ByKind["collection-end"])
	assert.Equal(t, uint64(collections*jobs), r.ByKind["job-start"], "serial's inline jobs and the pool's")
	assert.Equal(t, uint64(collections*jobs), r.ByKind["job-end"])
	assert.Equal(t, uint64((gcs+warmup)*(jobs+1)), r.ByKind["enqueue"], "perjob: one per job; batch: one")

	out := filepath.Join(dir, "out.json")
	stdout, stderr, code = runBinary(t, "trace", "--perfetto", out, file)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "wrote "+out)
	assert.Empty(t, stdout, "standard output is left to the export, which may go there")
	pdata, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(pdata, &doc), "Perfetto export is JSON")
	spans := map[string]int{}
	for _, ev := range doc.TraceEvents {
		if ev.Ph == "B" {
			spans[ev.Name]++
		}
	}
	for _, mode := range []string{"serial", "perjob", "batch"} { // each collection's slice names its mode
		assert.Equal(t, gcs+warmup, spans["collection "+mode], mode)
	}
	assert.Equal(t, collections*jobs, spans["job"])
}

func TestRunTraceUnwritableFile(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--trace", filepath.Join(t.TempDir(), "no", "such", "dir", "x.gctrace"))...)
	assert.Equal(t, 2, code, "a bad output path is bad usage, found before the run: %s", stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.Contains(t, stderr, "--trace")
	assert.Contains(t, stderr, "does not exist")
}

// TestRunGOMAXPROCS: the saved report's host records the GOMAXPROCS in
// force during the run, and its configuration what was asked for.
func TestRunGOMAXPROCS(t *testing.T) {
	tests := []struct {
		args    []string
		setting string
		want    int // 0: the runtime's default, which is at most the CPU count
	}{
		{[]string{"--backend", "threads", "--workers", "2", "--modes", "serial,batch"}, "auto", 3},
		{[]string{"--backend", "threads", "--workers", "3", "--modes", "perjob"}, "auto", 4},
		{[]string{"--backend", "threads", "--workers", "2", "--modes", "serial"}, "auto", 0},
		{[]string{"--backend", "goroutines", "--workers", "8", "--modes", "batch"}, "auto", 0},
		{[]string{"--backend", "goroutines", "--workers", "2", "--modes", "batch", "--gomaxprocs", "5"}, "5", 5},
		{[]string{"--backend", "threads", "--workers", "2", "--modes", "batch", "--gomaxprocs", "1"}, "1", 1},
	}
	for _, tt := range tests {
		saved := filepath.Join(t.TempDir(), "run.json")
		args := tiny(append([]string{"--gcs", "2", "--warmup", "0", "--out", saved}, tt.args...)...)
		_, stderr, code := runBinary(t, args...)
		require.Equal(t, 0, code, "%v: %s", tt.args, stderr)
		data, err := os.ReadFile(saved)
		require.NoError(t, err)
		var doc struct {
			Config map[string]string
			Runs   []struct {
				Host struct{ GOMAXPROCS int }
			}
		}
		require.NoError(t, json.Unmarshal(data, &doc))
		require.Len(t, doc.Runs, 1)
		assert.Equal(t, tt.setting, doc.Config["gomaxprocs"], "%v", tt.args)
		got := doc.Runs[0].Host.GOMAXPROCS
		if tt.want > 0 {
			assert.Equal(t, tt.want, got, "%v", tt.args)
			continue
		}
		if env, err := strconv.Atoi(os.Getenv("GOMAXPROCS")); err == nil && env > 0 {
			assert.Equal(t, env, got, "%v: the runtime's default honours $GOMAXPROCS", tt.args)
		} else {
			assert.True(t, got >= 1 && got <= runtime.NumCPU(), "%v: runtime default, got %d", tt.args, got)
		}
	}
}

// TestRunLockCollector: --lock-collector is recorded in the report's
// configuration, and only when given, so that reports made before it
// existed keep merging with runs that do not use it.
func TestRunLockCollector(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--modes", "perjob,batch", "--lock-collector")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "collector=locked-thread")
	stdout, stderr, code = runBinary(t, tiny("--modes", "perjob,batch")...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "collector=")
}

// TestPartialReasonKeepsWhatAFailedRunMeasured: a run stopped by a
// failure (here a verification error) after measuring every mode is kept
// as partial, as one stopped by a signal is, and says why; a run that
// finished, or measured a mode not at all, is not partial.
func TestPartialReasonKeepsWhatAFailedRunMeasured(t *testing.T) {
	two := &gcsim.Result{Modes: []gcsim.ModeResult{{Mode: gcsim.PerJob, Records: make([]gcsim.Record, 3)}, {Mode: gcsim.Batch, Records: make([]gcsim.Record, 2)}}}
	none := &gcsim.Result{Modes: []gcsim.ModeResult{{Mode: gcsim.PerJob, Records: make([]gcsim.Record, 1)}, {Mode: gcsim.Batch}}}
	failed := errors.New("verifying after a batch collection: the graph changed")

	assert.Equal(t, "verifying after a batch collection: the graph changed after 2 of 10 collections per mode",
		partialReason(context.Background(), failed, two, 10))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupted{syscall.SIGINT})
	assert.Equal(t, "interrupted by SIGINT after 2 of 10 collections per mode",
		partialReason(ctx, fmt.Errorf("collecting: %w", context.Canceled), two, 10))
	assert.Empty(t, partialReason(context.Background(), nil, two, 10), "a finished run")
	assert.Empty(t, partialReason(context.Background(), failed, none, 10), "batch measured nothing")
	assert.Equal(t, 5, two.Recorded(), "collections_timed counts the records taken")
}

// TestAnOutputIntoStandardOutputIsRefused: with no --out the report goes
// to standard output; a --trace or --plot into the file (or pipe) standard
// output is open on would mix with it or be lost, so it is refused before
// the run, and the file keeps what it held.
func TestAnOutputIntoStandardOutputIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"--trace", "--plot"} {
		name := filepath.Join(dir, "out"+map[string]string{"--trace": ".gctrace", "--plot": ".png"}[flag])
		require.NoError(t, os.WriteFile(name, []byte("kept\n"), 0o644))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		var stderr bytes.Buffer
		cmd := exec.Command(gcbenchBin, append(slices.Clone(runTiny), flag, name)...)
		cmd.Stdout, cmd.Stderr = f, &stderr
		err = testwait.Run(t, cmd, runBound)
		f.Close()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, flag)
		assert.Equal(t, 2, exit.ExitCode(), flag)
		assert.Contains(t, stderr.String(), "standard output /dev/stdout and "+flag, flag)
		kept, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Equal(t, "kept\n", string(kept), flag)
	}
	_, stderr, code := runBinary(t, append(slices.Clone(runTiny), "--trace", "/dev/stdout")...)
	assert.Equal(t, 2, code, "the report and the trace down one pipe")
	assert.Contains(t, stderr, "give each output its own file")
}

// TestAReportStandardOutputCannotTakeIsKept: with standard output on a
// full disk (/dev/full), the report is kept in the temporary directory,
// which the one-line error names, and the run exits 1.
func TestAReportStandardOutputCannotTakeIsKept(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0) // Linux's: every write fails with ENOSPC
	require.NoError(t, err)
	defer full.Close()
	tmp := t.TempDir()
	var stderr bytes.Buffer
	cmd := exec.Command(gcbenchBin, runTiny...)
	cmd.Stdout, cmd.Stderr = full, &stderr
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	err = testwait.Run(t, cmd, runBound)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, stderr.String())
	assert.Equal(t, 1, exit.ExitCode())
	kept, err := filepath.Glob(filepath.Join(tmp, "gcbench-report-*.txt"))
	require.NoError(t, err)
	require.Len(t, kept, 1, stderr.String())
	assert.Contains(t, stderr.String(), "no space left on device; the output is saved in "+kept[0]+" instead")
	assert.Equal(t, 2, strings.Count(stderr.String(), "\n"), "the start line, then one line of error")
	text, err := os.ReadFile(kept[0])
	require.NoError(t, err)
	assert.Contains(t, string(text), "minor-collection pause")
}

// TestRunQuietPrintsNothingButTheReport: --quiet drops the start line
// (and the progress), nothing else.
func TestRunQuietPrintsNothingButTheReport(t *testing.T) {
	stdout, stderr, code := runBinary(t, tiny("--quiet", "--modes", "batch")...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "p99.9")
}

// TestHeapMemoryIsTheSpacesAndTheirTables: the default run's heap needs
// its spaces and the card tables on top (a 512th of the range each), and
// --help and the start line round it to a tenth of a GiB.
func TestHeapMemoryIsTheSpacesAndTheirTables(t *testing.T) {
	c := gcsim.DefaultConfig().Heap()
	spaces := c.MajorHeap + c.LOS + c.Nursery
	m := heapMemory(c)
	assert.Greater(t, m, spaces+2*spaces/512, "the spaces and two card tables at least")
	assert.Less(t, m, spaces+spaces/64, "the metadata is a small part")
	assert.Equal(t, "3.5 GiB", memoryText(m))
	assert.Equal(t, "81 MiB", memoryText(heapMemory(gcsim.Config{MajorHeap: 64 << 20, LOS: 16 << 20, Nursery: 256 << 10}.Heap())))
	stdout, stderr, code := runBinary(t, "run", "--help")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, unwrapHelp(stdout), "--quiet")
	assert.Contains(t, strings.Join(strings.Fields(stdout), " "), "it needs about 3.5 GiB of memory")
}
