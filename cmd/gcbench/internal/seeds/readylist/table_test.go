package readylist

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// TestTableOfAPartialReport: a row per variant and producer count, the
// ratio's run-to-run range, and the PARTIAL line.
func TestTableOfAPartialReport(t *testing.T) {
	rep := &Report{Events: 10, Repetitions: 2, Partial: true, Rows: []Row{{Variant: "callback", Producers: 8, Ratio: 2,
		MPSC:  Stats{EventsPerMs: 200, RunTimeMs: 1, Samples: []float64{200, 300}},
		Mutex: Stats{EventsPerMs: 100, RunTimeMs: 2, Samples: []float64{100, 100}}}}}
	var out strings.Builder
	require.NoError(t, rep.Table("a host").Write(&out, render.Text))
	assert.Contains(t, out.String(), "host: a host")
	assert.Contains(t, out.String(), "PARTIAL: "+seeds.PartialNote)
	assert.Equal(t, []string{"callback", "8", "200", "1.00", "100", "2.00", "2.00", "2.00–3.00", "0", "0"},
		strings.Fields(strings.Split(strings.TrimSpace(out.String()), "\n")[5]), out.String())
}

func TestProcsCountsTheLargestRun(t *testing.T) {
	assert.Equal(t, 34, Procs(Options{Producers: []int{8, 32, 16}}))
	assert.Equal(t, Procs(Options{Producers: DefaultProducers}), Procs(Options{}), "nil producers are the defaults")
}
