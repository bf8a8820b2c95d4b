package tracestress

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/trace"
)

func sizeText(n int64) string { return strconv.FormatInt(n, 10) + "B" }

// oneIteration is a result of one run of each policy, each counting a
// second in which its reader read that many events.
func oneIteration(lockless, locked uint64) *Result {
	return &Result{
		Options: Options{Policies: []trace.Policy{trace.Lockless, trace.Locked}, Iterations: 1, Writers: 2, PayloadSize: 50},
		Runs: []Run{{Policy: trace.Lockless, Counted: Count{EventsRead: lockless, Duration: time.Second}},
			{Policy: trace.Locked, Counted: Count{EventsRead: locked, Duration: time.Second}}}}
}

// TestStressTableOfAPolicyThatNeverFinished: stopped before any run of
// one policy finished, its table has no rows (not a row of zeros) and says
// how many of its runs finished; CSV carries the same on every row.
func TestStressTableOfAPolicyThatNeverFinished(t *testing.T) {
	res := &Result{Partial: true,
		Options: Options{Policies: []trace.Policy{trace.Lockless, trace.Locked}, Iterations: 2, Writers: 2, PayloadSize: 50},
		Runs: []Run{{Policy: trace.Lockless, EventsRead: 100, Duration: time.Second,
			Counted: Count{EventsRead: 90, Duration: time.Second}}}}
	require.Nil(t, res.Metrics(trace.Locked))
	var text strings.Builder
	require.NoError(t, res.Write(&text, render.Text, "a host", sizeText))
	assert.Contains(t, text.String(), "PARTIAL: stopped: 1 of this policy's 2 runs finished")
	assert.Contains(t, text.String(), "PARTIAL: stopped: 0 of this policy's 2 runs finished")
	assert.Equal(t, 1, strings.Count(text.String(), "Events Read"), "a row for the policy that ran, none for the other")
	var csvOut strings.Builder
	require.NoError(t, res.Write(&csvOut, render.CSV, "a host", sizeText))
	recs, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, "partial", recs[0][len(recs[0])-1])
	assert.Equal(t, "stopped: 1 of 4 runs finished", recs[1][len(recs[1])-1])
}

// TestStressCSVCarriesTheRatio: the CSV has the Lockless/Locked ratio the
// text ends with, as two rows whose Average column holds it.
func TestStressCSVCarriesTheRatio(t *testing.T) {
	res := oneIteration(300, 200)
	var out strings.Builder
	require.NoError(t, res.Write(&out, render.CSV, "a host", sizeText))
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
	for _, r := range recs {
		if r[0] == "lockless/locked" && strings.Contains(r[1], "per-iteration") {
			assert.Equal(t, []string{"1.50", "1.50"}, r[2:4], "the per-iteration ratios' range in the Min and Max columns")
		}
	}
	out.Reset()
	require.NoError(t, res.Write(&out, render.Text, "a host", sizeText))
	assert.Contains(t, out.String(), "events read: 1.50x (median of per-iteration ratios 1.50; range 1.50–1.50)",
		"each iteration's ratio and their range")
}

// TestTextExplainsARatioBelowTarget: below Target the text says what
// each policy's reader got; with no Locked event read it says why there
// is no ratio.
func TestTextExplainsARatioBelowTarget(t *testing.T) {
	res := oneIteration(200, 200)
	var out strings.Builder
	require.NoError(t, res.Write(&out, render.Text, "a host", sizeText))
	assert.Contains(t, out.String(), "Lockless/Locked events read: 1.00x")
	assert.Contains(t, out.String(), "below target on ")
	assert.Contains(t, out.String(), "lockless, each run while the writers wrote: reader CPU share")

	res.Runs[1].Counted.EventsRead = 0
	out.Reset()
	require.NoError(t, res.Write(&out, render.Text, "a host", sizeText))
	assert.Contains(t, out.String(), "Lockless/Locked events read: no ratio")
	assert.NotContains(t, out.String(), "below target")
}

func TestDocumentLeavesProgressOut(t *testing.T) {
	res := &Result{Options: Options{Policies: []trace.Policy{trace.Locked}, Progress: func(int, int) {}}}
	d := res.Document()
	assert.Nil(t, d.Options.Progress)
	assert.NotNil(t, res.Options.Progress, "the result itself is left as it was")
	assert.Contains(t, d.Policies, "locked")
}
