package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

// The pause table: one row per statistic (tableStatistics: the seed's rows,
// then the minimum, the maximum and the tail percentiles GC people read), then the
// p-value, the sample count and the host-GC-disturbed count; one column per
// mode, then one "Improvement" column per comparison of the last mode with
// an earlier one. A merged report repeats the column group per run, headed
// by the host. All three text renderers (text, Markdown, CSV) draw this one
// grid, so they always agree.

// definitionsNote names the definitions of the rows (see the package
// documentation) under the text and Markdown tables, because the same row
// label means different numbers in different tools: the seed's rows are
// spreadsheet functions, and a reader comparing with them must know it.
const definitionsNote = "TrimMean p% = TRIMMEAN(range, p): p of the points in total dropped, half from each tail (the count rounded down to even). " +
	"Q1–Q3 = QUARTILE.INC: linear interpolation at position (n−1)·q. " +
	"p90, p99, p99.9 = the smallest pause that at least 90%, 99%, 99.9% of pauses do not exceed (an observed pause). " +
	"Min, Max = the shortest and the longest pause."

// A column is either a mode's values or a Delta's improvements.
type column struct {
	host string
	mode *report.Mode // value column
	cmp  *stats.Delta // improvement column
}

// runLabels names each run in headings: nothing for a single run, else
// its host's label, numbered ("vm #2") when two runs share a host.
func runLabels(r *report.Report) []string {
	labels := make([]string, len(r.Runs))
	if len(r.Runs) < 2 {
		return labels
	}
	count := map[string]int{}
	for _, run := range r.Runs {
		count[run.Host.Label()]++
	}
	seen := map[string]int{}
	for i, run := range r.Runs {
		l := run.Host.Label()
		seen[l]++
		if count[l] > 1 {
			l = fmt.Sprintf("%s #%d", l, seen[l])
		}
		labels[i] = l
	}
	return labels
}

func columns(r *report.Report) []column {
	var cols []column
	labels := runLabels(r)
	for ri := range r.Runs {
		run := &r.Runs[ri]
		host := labels[ri]
		for mi := range run.Modes {
			cols = append(cols, column{host: host, mode: &run.Modes[mi]})
		}
		for ci := range run.Comparisons {
			cols = append(cols, column{host: host, cmp: &run.Comparisons[ci]})
		}
	}
	return cols
}

// A rowKind is one row of the grid beyond the statistics.
type rowKind int

const (
	rowStat rowKind = iota
	rowP
	rowN
	rowDisturbed
)

type row struct {
	kind  rowKind
	stat  stats.Statistic
	label string
}

// tableStatistics are the pause table's statistic rows, in order: the
// seed's (stats.TableStatistics: the spread and the means, then the
// quartiles and p99), with the extremes around the quartiles and p90 and
// p99.9 beside p99, so that the rows read from the shortest pause up.
var tableStatistics = []stats.Statistic{
	stats.Stdev, stats.Mean, stats.TrimMean10, stats.TrimMean25,
	stats.Min, stats.Q1, stats.Median, stats.Q3, stats.P90, stats.P99, stats.P999, stats.Max,
}

func tableRows() []row {
	var rows []row
	for _, st := range tableStatistics {
		rows = append(rows, row{kind: rowStat, stat: st, label: st.String()})
	}
	return append(rows,
		row{kind: rowP, label: "p-value"},
		row{kind: rowN, label: "n"},
		row{kind: rowDisturbed, label: "host-GC disturbed"})
}

// A cellStyle decides how numbers are written: rounded for people; for
// machines unit-free and at fixed precision (µs to 3 decimals, i.e. whole
// nanoseconds; percentages to 2; p-values to 4 significant digits).
type cellStyle struct {
	value func(float64) string // µs
	pct   func(float64) string // improvement %
	p     func(float64) string // p-value
	// notSignificant, if not empty, follows each improvement of a
	// comparison whose p-value is not below stats.Alpha (people's
	// tables; a machine reads the p-value row).
	notSignificant string
}

// notSignificantMark follows an improvement that may be noise, and
// notSignificantNote, under the table when one is marked, says so once.
const notSignificantMark = "†"

var notSignificantNote = fmt.Sprintf("%s not significant: p ≥ %g, so this comparison's improvements may be noise.", notSignificantMark, stats.Alpha)

var humanStyle = cellStyle{
	value: func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	pct:   func(v float64) string { return fmt.Sprintf("%+.1f%%", v) },
	p: func(p float64) string {
		if p < 0.001 {
			return "<0.001"
		}
		return strconv.FormatFloat(p, 'f', 3, 64)
	},
	notSignificant: notSignificantMark,
}

var machineStyle = cellStyle{
	value: func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	pct:   func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	p:     func(p float64) string { return strconv.FormatFloat(p, 'g', 4, 64) },
}

func (c column) cell(rw row, s cellStyle) string {
	switch {
	case c.mode != nil:
		switch rw.kind {
		case rowStat:
			return s.value(c.mode.Summary.Value(rw.stat))
		case rowN:
			return strconv.Itoa(c.mode.Summary.N)
		case rowDisturbed:
			return strconv.Itoa(c.mode.DisturbedCount)
		}
	case c.cmp != nil:
		switch rw.kind {
		case rowStat:
			if v, ok := c.cmp.ImprovementOf(rw.stat); ok {
				if !c.cmp.Significant {
					return s.pct(v) + s.notSignificant
				}
				return s.pct(v)
			}
			return "n/a"
		case rowP:
			return s.p(c.cmp.P)
		}
	}
	return ""
}

// headers returns the column headings as lines: an optional host line, the
// mode or "Improvement" line, and the "B vs A" line.
func (c column) headers() (host, top, bottom string) {
	if c.mode != nil {
		return c.host, c.mode.Name, ""
	}
	return c.host, "Improvement", c.cmp.New + " vs " + c.cmp.Base
}

// WriteText writes the report as an aligned plain-text table with a short
// header describing the configuration and hosts.
func WriteText(w io.Writer, r *report.Report) error {
	return writeWithAnatomy(w, r, humanTable(r, len(r.Runs) > 1), Text)
}

// writeWithAnatomy writes t, then the anatomy table if the report has one.
func writeWithAnatomy(w io.Writer, r *report.Report, t *Table, f Format) error {
	if err := t.Write(w, f); err != nil {
		return err
	}
	if a := AnatomyTable(r); a != nil {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return a.Write(w, f)
	}
	return nil
}

// WriteMarkdown writes the report as a Markdown table (GitHub flavor) with
// the configuration and hosts as a list above it.
func WriteMarkdown(w io.Writer, r *report.Report) error {
	return writeWithAnatomy(w, r, humanTable(r, true), Markdown)
}

// humanTable is the grid as people read it: rounded numbers, the notes
// that define them. hostLine adds the heading line that names each
// column's host (text shows it only for merged reports; Markdown folds it
// into the one heading per column).
func humanTable(r *report.Report, hostLine bool) *Table {
	cols := columns(r)
	t := &Table{Title: "gcbench: " + r.Title, Facts: []Fact{{Key: "config", Value: r.Config.String(), Verbatim: true}}}
	for _, run := range r.Runs {
		t.Facts = append(t.Facts, Fact{Key: "host", Value: describeHost(run)})
		if run.Partial != "" {
			t.Facts = append(t.Facts, Fact{Key: "PARTIAL", Value: run.Partial, Warning: true})
		}
	}
	if hostLine {
		t.Header = append(t.Header, headerLine(cols, 0, ""))
	}
	t.Lead = verdictLines(r)
	t.Header = append(t.Header, headerLine(cols, 1, r.Title+" (µs)"), headerLine(cols, 2, ""))
	for _, rw := range tableRows() {
		line := []string{rw.label}
		for _, c := range cols {
			line = append(line, c.cell(rw, humanStyle))
		}
		t.Rows = append(t.Rows, line)
	}
	t.Notes = []string{
		"Improvement = (base − new) / base: positive means shorter pauses. p-value: two-sided Mann–Whitney U.",
		definitionsNote,
		medianCIs(r),
	}
	if slices.ContainsFunc(cols, func(c column) bool { return c.cmp != nil && !c.cmp.Significant }) {
		t.Notes = append(t.Notes, notSignificantNote)
	}
	return t
}

func headerLine(cols []column, part int, first string) []string {
	line := []string{first}
	for _, c := range cols {
		h, t, bt := c.headers()
		line = append(line, [...]string{h, t, bt}[part])
	}
	return line
}

func describeHost(r report.Run) string {
	h := r.Host
	return fmt.Sprintf("%s; %s; %d cores; GOMAXPROCS %d; %s %s/%s; elapsed %s",
		h.Label(), h.CPUModel, h.Cores, h.GOMAXPROCS, h.GoVersion, h.OS, h.Arch, r.Elapsed)
}

func medianCIs(r *report.Report) string {
	var parts []string
	labels := runLabels(r)
	for ri, run := range r.Runs {
		for _, m := range run.Modes {
			name := m.Name
			if labels[ri] != "" {
				name = labels[ri] + "/" + m.Name
			}
			if ci := m.Summary.MedianCI; ci != nil {
				parts = append(parts, fmt.Sprintf("%s %.1f [%.1f, %.1f]", name, m.Summary.Median, ci.Lo, ci.Hi))
			} else {
				parts = append(parts, fmt.Sprintf("%s %.1f [too few samples]", name, m.Summary.Median))
			}
		}
	}
	return fmt.Sprintf("Median with %.0f%% confidence interval (µs): %s.", stats.MedianConfidence*100, strings.Join(parts, "; "))
}

// WriteCSV writes the grid as CSV: a header record ("statistic", then one
// heading per column: "mode", "host/mode", "new vs base improvement %",
// then "config" and "host"), then one record per row, each ending in the
// configuration and the host(s), with unit-free numbers at fixed precision (µs to
// 3 decimals, percent to 2, p-values to 4 significant digits); cells that
// do not apply are empty. A run that stopped early adds a last column,
// "partial" (per host when several are merged), that says why on every
// record. It is the pause table only: the anatomy, a table of other
// columns, is WriteAnatomyCSV's.
func WriteCSV(w io.Writer, r *report.Report) error {
	cols := columns(r)
	t := &Table{Header: [][]string{append(csvHeader(cols, []string{"statistic"}, " improvement %"), csvSetting...)}}
	setting := csvSettingCells(r)
	for _, rw := range tableRows() {
		rec := []string{rw.label}
		for _, c := range cols {
			cell := c.cell(rw, machineStyle)
			if cell == "n/a" {
				cell = ""
			}
			rec = append(rec, cell)
		}
		t.Rows = append(t.Rows, append(rec, setting...))
	}
	addPartialColumns(r, t)
	return t.Write(w, CSV)
}

// csvSetting names the columns that end every record of a report's CSV
// tables (before "partial"): the configuration and the host, so that the
// rows, read alone or concatenated with another run's, say what ran where.
var csvSetting = []string{"config", "host"}

// csvSettingCells are the csvSetting cells of r's records: its
// configuration, and each run's host as the text header describes it
// (merged runs' in column order, separated by " | ").
func csvSettingCells(r *report.Report) []string {
	var hosts []string
	for _, run := range r.Runs {
		hosts = append(hosts, describeHost(run))
	}
	return []string{r.Config.String(), strings.Join(hosts, " | ")}
}

// addPartialColumns adds to t, for CSV, a column "partial" (per host when
// merged) on every record of a run that stopped early.
func addPartialColumns(r *report.Report, t *Table) {
	for _, run := range r.Runs {
		if run.Partial == "" {
			continue
		}
		key := "PARTIAL"
		if len(r.Runs) > 1 {
			key += " " + run.Host.Label()
		}
		t.Facts = append(t.Facts, Fact{Key: key, Value: run.Partial, Warning: true})
	}
}

// WriteAnatomyCSV writes the pause anatomy as a CSV table of its own:
// a header record ("row", "kind", then one heading per column as
// WriteCSV's: "mode", "host/mode", "new vs base difference"), then one
// record per part (kind "part (µs)") and per explaining counter (kind
// "counter (mean per collection)", its unit in its label): the mean per
// collection in each mode's column, base − new in each comparison's, at
// WriteCSV's precision; empty where a mode's run did not count it. A partial run
// adds WriteCSV's "partial" column. It returns an error wrapping
// ErrInvalidInput if the report has no anatomy (see HasAnatomy).
func WriteAnatomyCSV(w io.Writer, r *report.Report) error {
	if !r.HasAnatomy() {
		return fmt.Errorf("%w: the report has no pause anatomy", ErrInvalidInput)
	}
	cols := columns(r)
	t := &Table{Header: [][]string{append(csvHeader(cols, []string{"row", "kind"}, " difference"), csvSetting...)}}
	setting := csvSettingCells(r)
	rows := append(append([]report.AnatomyRow{}, r.Anatomy.Parts...), r.Anatomy.Counters...)
	for i, a := range rows {
		kind := "part (µs)"
		if i >= len(r.Anatomy.Parts) { // a counter's label says its unit
			kind = "counter (mean per collection)"
		}
		rec := []string{a.Label, kind}
		for ci, c := range cols {
			if c.mode != nil {
				cell := ""
				if v, ok := c.mode.CounterMeans[a.Key]; ok { // a counter the mode's run did not count is empty, not 0
					cell = machineStyle.value(v)
				}
				rec = append(rec, cell)
				continue
			}
			base, new := findMode(cols[:ci], c.host, c.cmp.Base), findMode(cols[:ci], c.host, c.cmp.New)
			cell := ""
			if base != nil && new != nil {
				bv, okB := base.CounterMeans[a.Key]
				nv, okN := new.CounterMeans[a.Key]
				if okB && okN {
					cell = machineStyle.value(bv - nv)
				}
			}
			rec = append(rec, cell)
		}
		t.Rows = append(t.Rows, append(rec, setting...))
	}
	addPartialColumns(r, t)
	return t.Write(w, CSV)
}

// csvHeader is a CSV table's one header line: first, then a column per mode
// (its name) and per comparison (its name and cmpSuffix), each prefixed
// "host/" when the report merges hosts.
func csvHeader(cols []column, first []string, cmpSuffix string) []string {
	head := first
	for _, c := range cols {
		h, t, bt := c.headers()
		label := t
		if c.cmp != nil {
			label = bt + cmpSuffix
		}
		if h != "" {
			label = h + "/" + label
		}
		head = append(head, label)
	}
	return head
}
