package readylist

import (
	"fmt"
	"strconv"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// Table is the seed's table as gcbench readylist prints it: per variant
// and producer count, each list kind's medians, their ratio with its
// run-to-run range, and pushes/ms. host is the machine's one-line
// description, shown under the title.
func (r *Report) Table(host string) *render.Table {
	header := []string{"variant", "threads", "mpsc events/ms", "mpsc run-time ms", "mutex events/ms", "mutex run-time ms", "ratio mpsc/mutex",
		"ratio range", "mpsc pushes/ms", "mutex pushes/ms"}
	var rows [][]string
	for _, row := range r.Rows {
		rows = append(rows, []string{
			row.Variant,
			strconv.Itoa(row.Producers),
			render.Float(row.MPSC.EventsPerMs, 0), render.Float(row.MPSC.RunTimeMs, 2),
			render.Float(row.Mutex.EventsPerMs, 0), render.Float(row.Mutex.RunTimeMs, 2),
			render.Float(row.Ratio, 2), render.Range(stats.SpreadOf(stats.PairedRatios(row.MPSC.Samples, row.Mutex.Samples)), 2),
			render.Float(row.MPSC.PushesPerMs, 0), render.Float(row.Mutex.PushesPerMs, 0),
		})
	}
	title := fmt.Sprintf("gcbench readylist: %d events per producer, medians of %d interleaved runs", r.Events, r.Repetitions)
	t := seeds.NewTable(title, host, header, rows)
	if r.Partial {
		t.Facts = append(t.Facts, seeds.Partial(seeds.PartialNote))
	}
	return t
}
