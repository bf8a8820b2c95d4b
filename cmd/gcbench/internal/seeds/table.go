package seeds

import "github.com/gcbench/gcbench/analysis/render"

// The protocols' tables share one look: a title naming the run's
// configuration, the host on the line under it, then the rows. Their
// cells spell numbers and ranges as every table does (render.Float and
// render.Range).

// NewTable is a protocol's result table: title, then a "host" fact with
// host (one line describing the machine, as the caller probed it), then
// one header line and the rows.
func NewTable(title, host string, header []string, rows [][]string) *render.Table {
	return &render.Table{Title: title, Facts: []render.Fact{{Key: "host", Value: host}},
		Header: [][]string{header}, Rows: rows}
}

// PartialNote is the PARTIAL line of a table whose report stopped early
// and summarizes repetitions (pool, ready list): what its medians are of.
const PartialNote = "interrupted; the medians are of the repetitions that finished, or, if the first did not, " +
	"of the runs that did (a run that did not finish is left out)"

// Partial is the warning fact a partial table carries: in CSV, a column
// of its own on every row.
func Partial(note string) render.Fact {
	return render.Fact{Key: "PARTIAL", Value: note, Warning: true}
}
