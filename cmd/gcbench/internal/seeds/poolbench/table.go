package poolbench

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// Write renders the report as gcbench pool prints it, in a table format
// (Text, Markdown or CSV): the table of protos' columns, then, except in
// CSV, a line naming the best contender of each protocol and API. host is
// the machine's one-line description, shown under the title.
func (r *Report) Write(w io.Writer, f render.Format, host string, protos []Protocol) error {
	if err := r.Table(f, host, protos).Write(w, f); err != nil {
		return err
	}
	if f == render.CSV {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", r.bestLine(protos)); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}

// Table is the report's table in format f: a row per contender, and for
// each of protos its median time, per item, range and speedup. A run a
// stop left undone is blank.
func (r *Report) Table(f render.Format, host string, protos []Protocol) *render.Table {
	var rows [][]string
	for _, row := range r.Rows {
		cells := []string{row.Contender}
		for _, p := range protos {
			cells = append(cells, r.cells(row.stats(p), p)...)
		}
		rows = append(rows, cells)
	}
	t := seeds.NewTable(r.title(), host, tableHeader(f, protos), rows)
	if r.Partial {
		t.Facts = append(t.Facts, seeds.Partial(seeds.PartialNote))
	}
	return t
}

// tableHeader names each protocol's four columns; in CSV the range and
// speedup are named after their protocol, as CSV readers look columns
// up by name.
func tableHeader(f render.Format, protos []Protocol) []string {
	header := []string{"contender"}
	for _, p := range protos {
		unit := "ns/item"
		if p == Latency {
			unit = "ns/trip"
		}
		rng, speedup := "range", "speedup"
		if f == render.CSV {
			rng, speedup = p.String()+" range", p.String()+" speedup"
		}
		header = append(header, p.String()+" s", unit, rng, speedup)
	}
	return header
}

// cells are one contender's four cells for protocol p, blank if its run
// did not finish (a partial first repetition).
func (r *Report) cells(st *Stats, p Protocol) []string {
	if st == nil {
		return []string{"", "", "", ""}
	}
	items := r.Items
	if p == Latency {
		items = r.RoundTrips
	}
	perItem := make([]float64, len(st.Samples))
	for i, sec := range st.Samples {
		perItem[i] = sec * 1e9 / float64(items)
	}
	return []string{render.Float(st.Seconds, 3), render.Float(st.PerItemNs, 0),
		render.Range(stats.SpreadOf(perItem), 0), render.Float(st.Speedup, 2) + "x"}
}

func (r *Report) title() string {
	batch := fmt.Sprintf("EnqueueBatch of %d", r.BatchSize)
	if r.BatchSize == 0 {
		batch = "one EnqueueBatch of all items"
	}
	return fmt.Sprintf("gcbench pool: throughput = %d items queued, then waited for; latency = %d sequential "+
		"submit-and-wait round trips; %d workers, %s; medians of %d interleaved runs; speedup = %s time / contender time",
		r.Items, r.RoundTrips, r.Workers, batch, r.Repetitions, BaselineName)
}

// bestLine names the fastest contender of each protocol and API, with
// the median speedup and, from two repetitions on, the range of the
// repetitions' own speedups.
func (r *Report) bestLine(protos []Protocol) string {
	var best []string
	for _, p := range protos {
		for _, api := range []string{"batch", "enqueue"} {
			if row := r.Best(p, api); row != nil {
				st := row.stats(p)
				line := fmt.Sprintf("best %s %s: %s, %.2fx", p, api, row.Contender, st.Speedup)
				if len(st.Speedups) > 1 {
					line += " (repetitions " + render.Range(stats.SpreadOf(st.Speedups), 2) + "x)"
				}
				best = append(best, line)
			}
		}
	}
	return strings.Join(best, "; ")
}

// stats are the row's statistics of protocol p, nil if it did not run.
func (row *Row) stats(p Protocol) *Stats {
	if p == Latency {
		return row.Latency
	}
	return row.Throughput
}
