package poolbench

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// TestPoolTableOfAFirstRepetitionStoppedPartWay: runs a stop left undone
// are blank cells, and the table says it is partial.
func TestPoolTableOfAFirstRepetitionStoppedPartWay(t *testing.T) {
	stats := func(sec float64) *Stats {
		return &Stats{Seconds: sec, PerItemNs: sec * 1e9 / 100, Speedup: 0.002 / sec, Samples: []float64{sec}}
	}
	rep := &Report{Workers: 2, Items: 100, RoundTrips: 10, Repetitions: 1, Partial: true, Rows: []Row{
		{Contender: "goroutine-per-item", API: "go", Throughput: stats(0.002), Latency: stats(0.001)},
		{Contender: "goroutines/targeted/enqueue", API: "enqueue", Throughput: stats(0.001)},
	}}
	protos := []Protocol{Throughput, Latency}
	var out bytes.Buffer
	require.NoError(t, rep.Write(&out, render.CSV, "a host", protos))
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
	assert.Equal(t, seeds.PartialNote, undone[9])

	out.Reset()
	require.NoError(t, rep.Write(&out, render.Text, "a host", protos))
	assert.Contains(t, out.String(), "PARTIAL: "+seeds.PartialNote)
	assert.Contains(t, out.String(), "best throughput enqueue: goroutines/targeted/enqueue, 2.00x")
}

// TestPoolBestLineGivesTheRepetitionsRange: the best line gives each
// headline speedup with the range of the repetitions' own speedups.
func TestPoolBestLineGivesTheRepetitionsRange(t *testing.T) {
	base := []float64{0.004, 0.006, 0.005}
	own := []float64{0.001, 0.002, 0.001}
	rep := &Report{Workers: 2, Items: 100, RoundTrips: 10, Repetitions: 3, Rows: []Row{
		{Contender: BaselineName, API: "go", Throughput: summarizePool(base, base, 100)},
		{Contender: "goroutines/targeted/enqueue", API: "enqueue", Throughput: summarizePool(own, base, 100)},
	}}
	assert.Equal(t, []float64{4, 3, 5}, rep.Rows[1].Throughput.Speedups, "each repetition's baseline time over the contender's")
	var out bytes.Buffer
	require.NoError(t, rep.Write(&out, render.Markdown, "a host", []Protocol{Throughput}))
	assert.Contains(t, out.String(), "best throughput enqueue: goroutines/targeted/enqueue, 5.00x (repetitions 3.00–5.00x)")
}
