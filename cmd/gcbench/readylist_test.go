package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var readylistTiny = []string{"readylist", "--producers", "2,3", "--events", "500", "--repetitions", "2"}

func TestReadylistTextTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, readylistTiny...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "no progress output when stderr is not a terminal")
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	require.Len(t, lines, 8, stdout) // title, host, blank, header, 2 variants × 2 counts
	assert.Contains(t, lines[0], "500 events per producer, medians of 2 interleaved runs")
	assert.True(t, strings.HasPrefix(lines[1], "host: "), lines[1])
	assert.Empty(t, lines[2])
	assert.Equal(t, []string{"variant", "threads", "mpsc", "events/ms", "mpsc", "run-time", "ms", "mutex", "events/ms", "mutex", "run-time", "ms", "ratio", "mpsc/mutex",
		"ratio", "range", "mpsc", "pushes/ms", "mutex", "pushes/ms"}, strings.Fields(lines[3]))
	for i, want := range [][2]string{{"transition", "2"}, {"transition", "3"}, {"callback", "2"}, {"callback", "3"}} {
		f := strings.Fields(lines[4+i])
		require.Len(t, f, 10, lines[4+i])
		assert.Equal(t, want[:], f[:2])
		lo, hi, ok := strings.Cut(f[7], "–")
		require.True(t, ok, "the ratios' range %q", f[7])
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		require.NoError(t, errors.Join(err1, err2))
		// ≥ 0, not > 0: with 500 events a run preempted for a time slice
		// can make a ratio that rounds to 0.00 on a loaded machine.
		assert.True(t, l <= h && l >= 0 && h > 0, "range %q", f[7])
		for _, cell := range append(f[2:7:7], f[8:]...) {
			v, err := strconv.ParseFloat(cell, 64)
			require.NoError(t, err, "cell %q", cell)
			assert.GreaterOrEqual(t, v, 0.0)
		}
	}
}

func TestReadylistJSON(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(readylistTiny, "--format", "json")...)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Command string
		Host    struct {
			GOMAXPROCS int `json:"gomaxprocs"`
		}
		Report struct {
			Events      int `json:"events_per_producer"`
			Repetitions int
			Rows        []struct {
				Variant     string
				Producers   int
				MPSC, Mutex struct {
					EventsPerMs float64   `json:"events_per_ms"`
					Samples     []float64 `json:"events_per_ms_samples"`
				}
				Ratio float64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Equal(t, "readylist", doc.Command)
	assert.Equal(t, 5, doc.Host.GOMAXPROCS, "auto: 3 producers (the most) + consumer + 1")
	assert.Equal(t, 500, doc.Report.Events)
	assert.Equal(t, 2, doc.Report.Repetitions)
	require.Len(t, doc.Report.Rows, 4)
	for i, r := range doc.Report.Rows {
		assert.Equal(t, []string{"transition", "transition", "callback", "callback"}[i], r.Variant)
		assert.Equal(t, []int{2, 3, 2, 3}[i], r.Producers)
		assert.Len(t, r.MPSC.Samples, 2)
		assert.Len(t, r.Mutex.Samples, 2)
		assert.InDelta(t, r.MPSC.EventsPerMs/r.Mutex.EventsPerMs, r.Ratio, 1e-9)
	}
}

func TestReadylistCSVAndMarkdown(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(readylistTiny, "--format", "csv")...)
	require.Equal(t, 0, code, stderr)
	records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 5)
	assert.Equal(t, []string{"variant", "threads"}, records[0][:2])
	assert.Equal(t, []string{"callback", "3"}, records[4][:2])

	stdout, stderr, code = runBinary(t, append(readylistTiny, "--format", "markdown")...)
	require.Equal(t, 0, code, stderr)
	var table []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	require.Len(t, table, 6, stdout) // header, rule, 4 rows
	for _, l := range table {
		assert.Equal(t, 11, strings.Count(l, "|"), l)
	}
}

func TestReadylistOneVariant(t *testing.T) {
	for _, v := range []string{"transition", "callback", "Callback"} {
		stdout, stderr, code := runBinary(t, append(readylistTiny, "--variants", v, "--format", "csv")...)
		require.Equal(t, 0, code, stderr)
		records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		require.NoError(t, err)
		require.Len(t, records, 3, stdout)
		for _, r := range records[1:] {
			assert.Equal(t, strings.ToLower(v), r[0])
		}
	}
}

func TestReadylistBadUsageExits2WithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"--producers", "0"},
		{"--producers", "x"},
		{"--events", "0"},
		{"--repetitions", "-1"},
		{"--format", "xml"},
		{"--variants", "edge"},
		{"--variants", ""},
		{"--variants", "callback,CALLBACK"},
		{"--producers", "8,8"},
		{"--events", "9223372036854775807"},
		{"--events", "4000000000000", "--producers", "8"},
		{"extra"},
	} {
		stdout, stderr, code := runBinary(t, append([]string{"readylist"}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, stdout, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %q", args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "gcbench readylist: "), "%v: %q", args, stderr)
	}
}

func TestReadylistHelp(t *testing.T) {
	stdout, _, code := runBinary(t, "readylist", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "--producers")
	assert.Contains(t, stdout, "--variants")
	assert.Contains(t, stdout, "ep_poll_callback")
	assert.Contains(t, stdout, "--format")
}
