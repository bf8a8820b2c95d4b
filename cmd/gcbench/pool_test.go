package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/protocols/poolbench"
	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/gcbench/gcbench/render"
)

var poolTiny = []string{"pool", "--items", "2000", "--round-trips", "40", "--repetitions", "2",
	"--workers", "2", "--batch-size", "100", "--backends", "goroutines,threads", "--wakes", "targeted"}

var poolTinyContenders = []string{"goroutine-per-item",
	"goroutines/targeted/enqueue", "goroutines/targeted/batch",
	"threads/targeted/enqueue", "threads/targeted/batch"}

func TestPoolTextTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, poolTiny...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.Len(t, lines, 4+len(poolTinyContenders)+2, stdout) // title, host, blank, header, rows, blank, best
	assert.True(t, strings.HasPrefix(lines[1], "host: "), lines[1])
	assert.Contains(t, lines[0], "throughput = 2000 items")
	assert.Contains(t, lines[0], "latency = 40 sequential")
	assert.Contains(t, lines[0], "2 workers, EnqueueBatch of 100; medians of 2 interleaved runs")
	assert.Equal(t, []string{"contender", "throughput", "s", "ns/item", "range", "speedup", "latency", "s", "ns/trip", "range", "speedup"}, strings.Fields(lines[3]))
	for i, name := range poolTinyContenders {
		f := strings.Fields(lines[4+i])
		require.Len(t, f, 9, lines[4+i])
		assert.Equal(t, name, f[0])
		for j, cell := range f[1:] {
			if j == 2 || j == 6 { // the runs' range, lo–hi
				lo, hi, ok := strings.Cut(cell, "–")
				require.True(t, ok, "range %q", cell)
				l, err1 := strconv.ParseFloat(lo, 64)
				h, err2 := strconv.ParseFloat(hi, 64)
				require.NoError(t, errors.Join(err1, err2), "range %q", cell)
				assert.LessOrEqual(t, l, h, "range %q", cell)
				continue
			}
			v, err := strconv.ParseFloat(strings.TrimSuffix(cell, "x"), 64)
			require.NoError(t, err, "cell %q", cell)
			assert.GreaterOrEqual(t, v, 0.0)
		}
	}
	assert.Equal(t, "1.00x", strings.Fields(lines[4])[4], "the baseline's speedup over itself")
	assert.Empty(t, lines[len(lines)-2])
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], "best throughput batch: "), lines[len(lines)-1])
}

func TestPoolJSON(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(poolTiny, "--format", "json")...)
	require.Equal(t, 0, code, stderr)
	type stats struct {
		Seconds float64
		Speedup float64   `json:"speedup_vs_goroutines"`
		Samples []float64 `json:"samples_seconds"`
	}
	var doc struct {
		Command string
		Report  struct {
			Workers     int
			Items       int `json:"throughput_items"`
			RoundTrips  int `json:"latency_round_trips"`
			BatchSize   int `json:"batch_size"`
			Repetitions int
			Rows        []struct {
				Contender           string
				API                 string
				Throughput, Latency *stats
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Equal(t, "pool", doc.Command)
	assert.Equal(t, 2, doc.Report.Workers)
	assert.Equal(t, 2000, doc.Report.Items)
	assert.Equal(t, 40, doc.Report.RoundTrips)
	assert.Equal(t, 100, doc.Report.BatchSize)
	var names []string
	for _, r := range doc.Report.Rows {
		names = append(names, r.Contender)
		require.NotNil(t, r.Throughput)
		require.NotNil(t, r.Latency)
		assert.Len(t, r.Throughput.Samples, 2)
		assert.Positive(t, r.Latency.Speedup)
	}
	assert.Equal(t, poolTinyContenders, names)
}

func TestPoolOneProtocolCSV(t *testing.T) {
	stdout, stderr, code := runBinary(t, "pool", "--protocols", "latency", "--round-trips", "20", "--repetitions", "1",
		"--backends", "goroutines", "--wakes", "spin,broadcast", "--format", "csv")
	require.Equal(t, 0, code, stderr)
	records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 6)
	assert.Equal(t, []string{"contender", "latency s", "ns/trip", "latency range", "latency speedup"}, records[0])
	assert.Equal(t, "goroutines/broadcast/batch", records[5][0])
}

func TestPoolBadUsageExits2WithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"--items", "0"},
		{"--items", "many"},
		{"--round-trips", "-3"},
		{"--workers", "0"},
		{"--batch-size", "0"},
		{"--gomaxprocs", "-1"},
		{"--gomaxprocs", "4098"},
		{"--gomaxprocs", "two"},
		{"--wakes", "shout"},
		{"--backends", "fibers"},
		{"--protocols", "bandwidth"},
		{"--wakes", "spin,SPIN"},
		{"--backends", "threads,"},
		{"--items", "9223372036854775807"},
		{"--round-trips", "2000000000", "--repetitions", "1000"},
		{"--format", "yaml"},
		{"extra"},
	} {
		stdout, stderr, code := runBinary(t, append([]string{"pool"}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, stdout, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %q", args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "gcbench pool: "), "%v: %q", args, stderr)
	}
}

func TestPoolGOMAXPROCSIsSetAndRecorded(t *testing.T) {
	args := []string{"pool", "--protocols", "latency", "--round-trips", "20", "--repetitions", "1",
		"--workers", "2", "--backends", "threads", "--wakes", "targeted", "--gomaxprocs", "3"}
	stdout, stderr, code := runBinary(t, args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, strings.Split(stdout, "\n")[1], "GOMAXPROCS 3,", "the host line")

	stdout, stderr, code = runBinary(t, append(args, "--format", "json")...)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Host struct {
			GOMAXPROCS int `json:"gomaxprocs"`
		}
		Report struct {
			GOMAXPROCS int `json:"gomaxprocs"`
			Workers    int
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Equal(t, 3, doc.Host.GOMAXPROCS)
	assert.Equal(t, 3, doc.Report.GOMAXPROCS, "the setting the runs saw")
	assert.Equal(t, 2, doc.Report.Workers)

	// 0 leaves the runtime's default, which the GOMAXPROCS variable sets.
	cmd := exec.Command(gcbenchBin, "pool", "--protocols", "latency", "--round-trips", "5", "--repetitions", "1",
		"--workers", "1", "--backends", "goroutines", "--wakes", "spin", "--gomaxprocs", "0", "--format", "json")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	require.NoError(t, testwait.Run(t, cmd, runBound))
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	assert.Equal(t, 1, doc.Host.GOMAXPROCS)
	assert.Equal(t, 1, doc.Report.GOMAXPROCS)

	// With the threads backend and no --gomaxprocs, workers+1: a woken
	// worker thread must not wait for a P.
	cmd = exec.Command(gcbenchBin, "pool", "--protocols", "latency", "--round-trips", "5", "--repetitions", "1",
		"--workers", "2", "--backends", "threads", "--wakes", "spin", "--format", "json")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	out.Reset()
	cmd.Stdout = &out
	require.NoError(t, testwait.Run(t, cmd, runBound))
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	assert.Equal(t, 3, doc.Report.GOMAXPROCS)

	stdout, stderr, code = runBinary(t, "pool", "--gomaxprocs", "-2")
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "gcbench pool: invalid argument \"-2\" for \"--gomaxprocs\" flag: want a whole number from 0 to 4097\n", stderr)
}

func TestPoolHelp(t *testing.T) {
	stdout, _, code := runBinary(t, "pool", "--help")
	assert.Equal(t, 0, code)
	for _, flag := range []string{"--items", "--round-trips", "--repetitions", "--workers", "--batch-size", "--wakes", "--backends", "--format", "--gomaxprocs"} {
		assert.Contains(t, stdout, flag)
	}
}

// TestPoolRestoresGOMAXPROCS runs the command in this process: --gomaxprocs
// holds for the command only, as it does for run.
func TestPoolRestoresGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), &env{stdout: &stdout, stderr: &stderr}, []string{"pool", "--protocols", "latency", "--round-trips", "5", "--repetitions", "1",
		"--workers", "1", "--backends", "goroutines", "--wakes", "spin", "--gomaxprocs", strconv.Itoa(before + 1)})
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), fmt.Sprintf("GOMAXPROCS %d,", before+1), "in force during the command")
	assert.Equal(t, before, runtime.GOMAXPROCS(0), "restored afterwards")
}

// TestPoolTableOfAFirstRepetitionStoppedPartWay: runs a stop left undone
// are blank cells, and the table says it is partial.
func TestPoolTableOfAFirstRepetitionStoppedPartWay(t *testing.T) {
	stats := func(sec float64) *poolbench.Stats {
		return &poolbench.Stats{Seconds: sec, PerItemNs: sec * 1e9 / 100, Speedup: 0.002 / sec, Samples: []float64{sec}}
	}
	rep := &poolbench.Report{Workers: 2, Items: 100, RoundTrips: 10, Repetitions: 1, Partial: true, Rows: []poolbench.Row{
		{Contender: "goroutine-per-item", API: "go", Throughput: stats(0.002), Latency: stats(0.001)},
		{Contender: "goroutines/targeted/enqueue", API: "enqueue", Throughput: stats(0.001)},
	}}
	protos := []poolbench.Protocol{poolbench.Throughput, poolbench.Latency}
	var out bytes.Buffer
	require.NoError(t, writePoolTable(&out, render.CSV, rep, protos))
	records, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	require.NoError(t, err, out.String())
	var undone []string
	for _, r := range records {
		if r[0] == "goroutines/targeted/enqueue" {
			undone = r
		}
	}
	require.Len(t, undone, 10, out.String()) // the contender, two protocols' four cells, the partial column
	assert.Equal(t, []string{"0.001", "10000", "10000–10000", "2.00x"}, undone[1:5])
	assert.Equal(t, []string{"", "", "", ""}, undone[5:9], "the latency run that did not finish")
	assert.Equal(t, partialNote, undone[9])

	out.Reset()
	require.NoError(t, writePoolTable(&out, render.Text, rep, protos))
	assert.Contains(t, out.String(), "PARTIAL: "+partialNote)
	assert.Contains(t, out.String(), "best throughput enqueue: goroutines/targeted/enqueue, 2.00x")
}
