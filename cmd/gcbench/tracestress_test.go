package main

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/protocols/tracestress"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStressTableOfAPolicyThatNeverFinished: stopped before any run of
// one policy finished, its table has no rows (not a row of zeros) and says
// how many of its runs finished; CSV carries the same on every row.
func TestStressTableOfAPolicyThatNeverFinished(t *testing.T) {
	res := &tracestress.Result{Partial: true,
		Options: tracestress.Options{Policies: []trace.Policy{trace.Lockless, trace.Locked}, Iterations: 2, Writers: 2, PayloadSize: 50},
		Runs: []tracestress.Run{{Policy: trace.Lockless, EventsRead: 100, Duration: time.Second,
			Counted: tracestress.Count{EventsRead: 90, Duration: time.Second}}}}
	require.Nil(t, res.Metrics(trace.Locked))
	var text strings.Builder
	require.NoError(t, writeStress(&text, render.Text, res))
	assert.Contains(t, text.String(), "PARTIAL: stopped: 1 of this policy's 2 runs finished")
	assert.Contains(t, text.String(), "PARTIAL: stopped: 0 of this policy's 2 runs finished")
	assert.Equal(t, 1, strings.Count(text.String(), "Events Read"), "a row for the policy that ran, none for the other")
	var csvOut strings.Builder
	require.NoError(t, writeStress(&csvOut, render.CSV, res))
	recs, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, "partial", recs[0][len(recs[0])-1])
	assert.Equal(t, "stopped: 1 of 4 runs finished", recs[1][len(recs[1])-1])
}

// TestStressCSVCarriesTheRatio: the CSV has the Lockless/Locked ratio the
// text ends with, as two rows whose Average column holds it.
func TestStressCSVCarriesTheRatio(t *testing.T) {
	res := &tracestress.Result{
		Options: tracestress.Options{Policies: []trace.Policy{trace.Lockless, trace.Locked}, Iterations: 1, Writers: 2, PayloadSize: 50},
		Runs: []tracestress.Run{{Policy: trace.Lockless, Counted: tracestress.Count{EventsRead: 300, Duration: time.Second}},
			{Policy: trace.Locked, Counted: tracestress.Count{EventsRead: 200, Duration: time.Second}}}}
	var out strings.Builder
	require.NoError(t, writeStress(&out, render.CSV, res))
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	require.NoError(t, err)
	ratios := map[string]string{}
	for _, r := range recs {
		if r[0] == "lockless/locked" {
			ratios[r[1]] = r[4]
		}
	}
	assert.Equal(t, map[string]string{"event throughput, ratio of means": "1.50",
		"event throughput, median of per-iteration ratios": "1.50", "events read, median of per-iteration ratios": "1.50"}, ratios, out.String())
}

// TestTraceStressVariants: the flags that leave EventPipe's protocol (the
// batch reader, allocation outside the lock, the mutex, no writer cost)
// run and are named in each table's title; bad values are usage errors.
func TestTraceStressVariants(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(traceStressTiny, "--dir", t.TempDir(), "--reader", "batch", "--alloc", "outside",
		"--lock", "mutex", "--write-cost", "0s")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "policy lockless, allocation outside the lock: 3 writers, 50-byte payloads, 0s of work per event,")
	assert.Contains(t, stdout, "mutex (sync.Mutex) locks, batch reader")
	for _, args := range [][]string{{"--reader", "fast"}, {"--alloc", "middle"}, {"--write-cost", "-1us"}, {"--write-cost", "2s"}} {
		_, stderr, code := runBinary(t, append([]string{"trace-stress"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, args[0], "%v", args)
	}
}
