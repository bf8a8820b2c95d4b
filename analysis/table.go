package analysis

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The seed's table: one row per statistic (TableStatistics), then the
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
	"Q1–Q3 = QUARTILE.INC: linear interpolation at position (n−1)·q. p99 = the smallest pause that at least 99% of pauses do not exceed.\n"

// A column is either a mode's values or a comparison's improvements.
type column struct {
	host string
	mode *Mode       // value column
	cmp  *Comparison // improvement column
}

// runLabels names each run in headings: nothing for a single run, else
// its host's label, numbered ("vm #2") when two runs share a host.
func (r *Report) runLabels() []string {
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

func (r *Report) columns() []column {
	var cols []column
	labels := r.runLabels()
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
	stat  Statistic
	label string
}

func tableRows() []row {
	var rows []row
	for _, st := range TableStatistics {
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
}

var humanStyle = cellStyle{
	value: func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	pct:   func(v float64) string { return fmt.Sprintf("%+.1f%%", v) },
	p: func(p float64) string {
		if p < 0.001 {
			return "<0.001"
		}
		return strconv.FormatFloat(p, 'f', 3, 64)
	},
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
func (r *Report) WriteText(w io.Writer) error {
	cols, rows := r.columns(), tableRows()
	multiHost := len(r.Runs) > 1
	var lines [][]string
	if multiHost {
		lines = append(lines, headerLine(cols, 0, ""))
	}
	lines = append(lines, headerLine(cols, 1, r.Title+" (µs)"), headerLine(cols, 2, ""))
	for _, rw := range rows {
		line := []string{rw.label}
		for _, c := range cols {
			line = append(line, c.cell(rw, humanStyle))
		}
		lines = append(lines, line)
	}
	widths := make([]int, len(cols)+1)
	for _, line := range lines {
		for i, s := range line {
			widths[i] = max(widths[i], len([]rune(s)))
		}
	}
	var b strings.Builder
	r.writePreamble(&b)
	b.WriteString("\n")
	for _, line := range lines {
		for i, s := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(s)))
			if i == 0 {
				b.WriteString(s + pad)
			} else {
				b.WriteString("  " + pad + s)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nImprovement = (base − new) / base: positive means shorter pauses. p-value: two-sided Mann–Whitney U.\n")
	b.WriteString(definitionsNote)
	r.writeMedianCIs(&b)
	_, err := io.WriteString(w, trimLineEnds(b.String()))
	return err
}

func headerLine(cols []column, part int, first string) []string {
	line := []string{first}
	for _, c := range cols {
		h, t, bt := c.headers()
		line = append(line, [...]string{h, t, bt}[part])
	}
	return line
}

// writePreamble writes the title, configuration and host lines.
func (r *Report) writePreamble(b *strings.Builder) {
	fmt.Fprintf(b, "gcbench: %s\n", r.Title)
	fmt.Fprintf(b, "config: %s\n", strings.Join(r.configPairs(), " "))
	for _, run := range r.Runs {
		fmt.Fprintf(b, "host: %s\n", run.describeHost())
		if run.Partial != "" {
			fmt.Fprintf(b, "PARTIAL: %s\n", run.Partial)
		}
	}
}

func (r *Report) configPairs() []string {
	var cfg []string
	for _, k := range slices.Sorted(maps.Keys(r.Config)) {
		cfg = append(cfg, k+"="+r.Config[k])
	}
	return cfg
}

func (run Run) describeHost() string {
	h := run.Host
	return fmt.Sprintf("%s; %s; %d cores; GOMAXPROCS %d; %s %s/%s; elapsed %s",
		h.Label(), h.CPUModel, h.Cores, h.GOMAXPROCS, h.GoVersion, h.OS, h.Arch, run.Elapsed)
}

func (r *Report) writeMedianCIs(b *strings.Builder) {
	var parts []string
	labels := r.runLabels()
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
	fmt.Fprintf(b, "Median with %.0f%% confidence interval (µs): %s.\n", MedianConfidence*100, strings.Join(parts, "; "))
}

func trimLineEnds(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// WriteMarkdown writes the report as a Markdown table (GitHub flavour)
// preceded by the configuration and hosts as a list.
func (r *Report) WriteMarkdown(w io.Writer) error {
	cols, rows := r.columns(), tableRows()
	var b strings.Builder
	fmt.Fprintf(&b, "### gcbench: %s\n\n", mdEscape(r.Title))
	fmt.Fprintf(&b, "- config: `%s`\n", strings.Join(r.configPairs(), " "))
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "- host: %s\n", mdEscape(run.describeHost()))
		if run.Partial != "" {
			fmt.Fprintf(&b, "- **partial**: %s\n", mdEscape(run.Partial))
		}
	}
	b.WriteString("\n| " + mdEscape(r.Title) + " (µs) |")
	for _, c := range cols {
		h, t, bt := c.headers()
		label := strings.TrimSpace(strings.Join([]string{h, t, bt}, " "))
		b.WriteString(" " + mdEscape(label) + " |")
	}
	b.WriteString("\n| --- |" + strings.Repeat(" ---: |", len(cols)) + "\n")
	for _, rw := range rows {
		b.WriteString("| " + rw.label + " |")
		for _, c := range cols {
			b.WriteString(" " + c.cell(rw, humanStyle) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nImprovement = (base − new) / base: positive means shorter pauses. p-value: two-sided Mann–Whitney U.\n")
	b.WriteString(definitionsNote)
	r.writeMedianCIs(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps text from a report file (titles, names, hosts) inside
// its table cell or heading: a "|" would end the cell, a line break the row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// WriteCSV writes the grid as CSV: a header record ("statistic", then one
// heading per column: "mode", "host/mode", "new vs base improvement %"),
// then one record per row with unit-free numbers at fixed precision (µs to
// 3 decimals, percent to 2, p-values to 4 significant digits); cells that
// do not apply are empty.
func (r *Report) WriteCSV(w io.Writer) error {
	cols, rows := r.columns(), tableRows()
	cw := csv.NewWriter(w)
	head := []string{"statistic"}
	for _, c := range cols {
		h, t, bt := c.headers()
		label := t
		if c.cmp != nil {
			label = bt + " improvement %"
		}
		if h != "" {
			label = h + "/" + label
		}
		head = append(head, label)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, rw := range rows {
		rec := []string{rw.label}
		for _, c := range cols {
			cell := c.cell(rw, machineStyle)
			if cell == "n/a" {
				cell = ""
			}
			rec = append(rec, cell)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
