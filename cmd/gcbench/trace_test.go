package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/trace"
)

var traceStressTiny = []string{"trace-stress", "--writers", "3", "--payload", "50", "--limit", "400KiB",
	"--duration", "20ms", "--iterations", "2", "--flush-interval", "5ms"}

func TestTraceStressTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(traceStressTiny, "--dir", t.TempDir())...)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	for _, p := range []string{"lockless", "locked"} {
		assert.Contains(t, stdout, "policy "+p)
		assert.Contains(t, stdout, ": 3 writers, 50-byte payloads, 2µs of work per event, 400KiB limit, 20ms per run, 2 iterations, offheap buffers, spin (CoreCLR SpinLock) locks, eventpipe reader")
		assert.Contains(t, stdout, p+", each run while the writers wrote: reader CPU share ")
	}
	for _, row := range []string{"Events Read (events)", "Events Dropped (events)", "Throughput Efficiency (%)",
		"Event Throughput (events/s)", "Data Throughput (bytes/s)", "Host Go GC cycles (cycles)",
		"Reader flushes made (flushes)", "Reader flushes asked (duration / flush interval)", "Reader CPU share (% of one CPU)",
		"Manager lock wait time (s, summed over threads)", "Reader lock acquisitions per flush (manager lock)"} {
		assert.Equal(t, 2, strings.Count(stdout, row), "row %q once per policy", row)
	}
	assert.Contains(t, stdout, "Min")
	assert.Contains(t, stdout, "Std Dev")
	assert.Contains(t, stdout, "policy lockless, allocation inside the lock:")
	assert.Contains(t, stdout, "Lockless/Locked events read: ")
	assert.Equal(t, 2, strings.Count(stdout, "GOMAXPROCS 5,"), "auto: 3 writers + reader + 1, in each table's host line")
}

func TestTraceStressJSON(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(traceStressTiny, "--format", "json", "--memory", "goheap", "--policies", "locked", "--lock", "spin",
		"--gomaxprocs", "7")...)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Command string `json:"command"`
		Host    struct {
			GOMAXPROCS int `json:"gomaxprocs"`
		} `json:"host"`
		Report struct {
			Options struct {
				Memory, Lock string
			} `json:"options"`
			Runs []struct {
				Policy                    string
				EventsRead, EventsDropped uint64
			} `json:"runs"`
			Policies map[string][]struct {
				Name, Unit string
				Spread     struct{ Min, Max, Mean, StdDev float64 }
			} `json:"policies"`
		} `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), stdout)
	assert.Equal(t, "trace-stress", doc.Command)
	assert.Equal(t, 7, doc.Host.GOMAXPROCS, "--gomaxprocs, recorded")
	require.Len(t, doc.Report.Runs, 2)
	for _, r := range doc.Report.Runs {
		assert.Equal(t, "locked", r.Policy, "by name")
		assert.Positive(t, r.EventsRead)
	}
	assert.Equal(t, "goheap", doc.Report.Options.Memory)
	assert.Equal(t, "spin", doc.Report.Options.Lock)
	require.Len(t, doc.Report.Policies["locked"], 16)
	read := doc.Report.Policies["locked"][0]
	assert.Equal(t, "Events Read", read.Name)
	// Events Read counts only the counted time of each 20 ms run: under
	// -race a spinning writer can keep the reader out of all of it, so
	// the minimum may be 0 (each run's total read is positive, above).
	assert.GreaterOrEqual(t, read.Spread.Min, 0.0)
	assert.GreaterOrEqual(t, read.Spread.Max, read.Spread.Min)
}

func TestTraceStressBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"trace-stress", "--writers", "0"},
		{"trace-stress", "--limit", "1KiB"},
		{"trace-stress", "--limit", "lots"},
		{"trace-stress", "--policies", "fast"},
		{"trace-stress", "--memory", "disk"},
		{"trace-stress", "--lock", "futex"},
		{"trace-stress", "--duration", "-1s"},
		{"trace-stress", "--payload", "70000"},
		{"trace-stress", "--policies", "lockless,LOCKLESS"},
		{"trace-stress", "--policies", "locked,"},
		{"trace-stress", "--iterations", "9223372036854775807"},
		{"trace-stress", "--duration", "1h", "--iterations", "1000"},
		{"trace-stress", "--writers", "100000"},
		{"trace-stress", "--gomaxprocs", "-1"},
		{"trace-stress", "--dir", "/no/such/dir"},
		{"trace-stress", "extra"},
		{"trace-stress", "--no-such-flag"},
	} {
		stdout, stderr, code := runBinary(t, args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Empty(t, stdout)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line, got %q", args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "gcbench trace-stress: "), stderr)
	}
}

// writeTraceFile records a small pool-shaped session to a file, as gcsim
// does.
func writeTraceFile(t *testing.T) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "run.gctrace")
	f, err := os.Create(name)
	require.NoError(t, err)
	s, err := trace.NewSession(f, trace.Options{FlushInterval: time.Millisecond})
	require.NoError(t, err)
	o, err := gcsim.NewTraceObserver(s, 2)
	require.NoError(t, err)
	o.CollectionStart(1, gcsim.PerJob)
	o.Enqueued(4)
	for w := 0; w < 2; w++ {
		o.Woken(w)
		for j := 0; j < 2; j++ {
			o.JobStart(w)
			o.JobEnd(w)
		}
	}
	o.FutileWake(1)
	o.CollectionEnd(1, gcsim.PerJob)
	require.NoError(t, s.Close())
	require.NoError(t, f.Close())
	return name
}

func TestTraceSummary(t *testing.T) {
	name := writeTraceFile(t)
	stdout, stderr, code := runBinary(t, "trace", name)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "trace format v1")
	assert.Contains(t, stdout, "3 writers")
	for kind, n := range map[string]string{"collection-start": "1", "job-start": "4", "job-end": "4", "enqueue": "1", "wake": "2", "futile-wake": "1", "total read": "14", "lost": "0"} {
		found := false
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) >= 2 && strings.Join(f[:len(f)-1], " ") == kind {
				assert.Equal(t, n, f[len(f)-1], line)
				found = true
			}
		}
		assert.True(t, found, "no row for %s in\n%s", kind, stdout)
	}

	stdout, stderr, code = runBinary(t, "trace", "--format", "json", name)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Report struct {
			Events uint64            `json:"events"`
			Lost   uint64            `json:"lost"`
			ByKind map[string]uint64 `json:"by_kind"`
		} `json:"report"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, uint64(14), doc.Report.Events)
	assert.Equal(t, uint64(4), doc.Report.ByKind["job-end"])
}

func TestTracePerfetto(t *testing.T) {
	name := writeTraceFile(t)
	out := filepath.Join(t.TempDir(), "out.json")
	stdout, stderr, code := runBinary(t, "trace", "--perfetto", out, name)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "wrote "+out+": 14 events")
	assert.Empty(t, stdout)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	// To standard output, the export is the whole of it, one JSON document.
	stdout, stderr, code = runBinary(t, "trace", "--perfetto", "/dev/stdout", name)
	require.Equal(t, 0, code, stderr)
	assert.JSONEq(t, string(data), stdout)
	phases := map[string]int{}
	for _, ev := range doc.TraceEvents {
		phases[ev["ph"].(string)]++
		if ev["ph"] == "B" && strings.HasPrefix(ev["name"].(string), "collection") {
			assert.Equal(t, "collection perjob", ev["name"], "a collection's slice names its mode")
		}
	}
	assert.Equal(t, map[string]int{"B": 5, "E": 5, "i": 4, "M": 4}, phases) // M: process + collector + 2 workers
}

func TestTraceBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(writeTraceFile(t))
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.gctrace")
	require.NoError(t, os.WriteFile(cut, good[:len(good)-7], 0o644))
	junk := filepath.Join(dir, "junk.gctrace")
	require.NoError(t, os.WriteFile(junk, []byte("definitely not a trace file"), 0o644))
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	bad := filepath.Join(dir, "flipped.gctrace")
	require.NoError(t, os.WriteFile(bad, flipped, 0o644))
	for _, c := range []struct{ file, want string }{
		{junk, "not a gcbench trace"},
		{bad, "corrupt"},
		{filepath.Join(dir, "missing.gctrace"), "no such file"},
	} {
		for _, extra := range [][]string{nil, {"--perfetto", filepath.Join(dir, "x.json")}} {
			args := append(append([]string{"trace"}, extra...), c.file)
			stdout, stderr, code := runBinary(t, args...)
			assert.Equal(t, 1, code, "%v: %s", args, stderr)
			if c.file == bad && extra == nil { // the events before the damage are summarized, marked
				assert.Contains(t, stdout, "CORRUPT: trace: corrupt")
			} else {
				assert.Empty(t, stdout)
			}
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", args, stderr)
			assert.Contains(t, stderr, c.want)
			_, err := os.Stat(filepath.Join(dir, "x.json"))
			assert.True(t, os.IsNotExist(err), "a failed export left its output behind")
		}
	}
	_, stderr, code := runBinary(t, "trace")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want one trace FILE")

	// A trace cut short (its run was killed) reads to its last complete
	// block, and says so.
	stdout, stderr, code := runBinary(t, "trace", cut)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "TRUNCATED: the trace ends at byte")
	out := filepath.Join(dir, "cut.json")
	stdout, stderr, code = runBinary(t, "trace", "--perfetto", out, cut)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "truncated at byte")
	assert.Empty(t, stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, json.Valid(b))
}
