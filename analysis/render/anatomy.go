package render

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gcbench/gcbench/analysis/report"
)

// anatomyTolerance is how far (µs) the sum of the parts' means may be from
// the mean pause before the table says so: the parts are differences of
// the same nanosecond clock readings, so only rounding separates them.
const anatomyTolerance = 0.01

// AnatomyTable is the pause anatomy of every run's modes: the mean of each
// part per collection (µs), their sum beside the mean pause, the
// explaining counters, then for each comparison of the last mode with an
// earlier one, base − new per part and its share of the whole difference.
// It returns nil when the report has no anatomy.
func AnatomyTable(r *report.Report) *Table {
	a := r.Anatomy
	if a == nil || len(a.Parts) == 0 {
		return nil
	}
	cols := columns(r)
	t := &Table{Title: "pause anatomy: mean per collection (µs; counters: mean count)"}
	hosts, head := []string{""}, []string{"part"}
	for _, c := range cols {
		host, top, bottom := c.headers()
		if c.cmp != nil {
			hosts, head = append(hosts, host, ""), append(head, c.cmp.Base+" − "+c.cmp.New, "share")
			continue
		}
		hosts, head = append(hosts, host), append(head, top+bottom)
	}
	t.Header = [][]string{head}
	if len(r.Runs) > 1 { // merged: which host each column is
		t.Header = [][]string{hosts, head}
	}
	for _, p := range a.Parts {
		t.Rows = append(t.Rows, anatomyRow(p.Label, cols, func(m *report.Mode) float64 { return m.CounterMeans[p.Key] }, shareBeyondNoise(p.Key)))
	}
	t.Rows = append(t.Rows,
		anatomyRow("sum of the parts", cols, func(m *report.Mode) float64 { return a.Sum(m) }, shareBeyondNoise("")),
		anatomyRow("mean pause (Avg)", cols, func(m *report.Mode) float64 { return m.Summary.Mean }, shareBeyondNoise("")))
	for _, c := range a.Counters {
		t.Rows = append(t.Rows, anatomyRow(c.Label, cols, func(m *report.Mode) float64 { return counterMean(m, c.Key) }, nil))
	}
	t.Notes = append(t.Notes, "The parts add up to each collection's pause; a difference column is base − new (positive: new is shorter there), "+
		"share its part of the whole difference of the mean pauses.", shareNote)
	for _, run := range r.Runs {
		on := ""
		if len(r.Runs) > 1 {
			on = " on " + run.Host.Label()
		}
		for _, m := range run.Modes {
			if d := math.Abs(a.Sum(&m) - m.Summary.Mean); d > anatomyTolerance {
				t.Notes = append(t.Notes, fmt.Sprintf("WARNING: %s's parts%s add up to %.3f µs, not its mean pause %.3f µs.",
					m.Name, on, a.Sum(&m), m.Summary.Mean))
			}
		}
	}
	return t
}

// counterMean is m's mean of counter key, NaN where m's run did not count
// it (a counter its pool cannot have, such as the Native backend's futex
// calls): shown as n/a, never as a zero.
func counterMean(m *report.Mode, key string) float64 {
	if v, ok := m.CounterMeans[key]; ok {
		return v
	}
	return math.NaN()
}

// shareNote says when the anatomy shows a share: a share of a difference
// within noise (597% of a 28 µs difference) reads as a finding.
const shareNote = "A share is shown only where the whole difference of the mean pauses and the part's own difference both exceed their noise " +
	"(the 95% normal interval of a difference of two means); else it is left blank."

// shareBeyondNoise decides whether a row of counter key (the pause's
// total for "") shows its share of a comparison: only when the whole
// difference of the mean pauses and the row's own difference both exceed
// their noise (a part whose noise is unknown, as in an older report, is
// judged by the whole alone).
func shareBeyondNoise(key string) func(base, new *report.Mode) bool {
	return func(base, new *report.Mode) bool {
		if noise, _ := report.DifferenceIsNoise(base, new, ""); noise {
			return false
		}
		noise, _ := report.DifferenceIsNoise(base, new, key)
		return !noise
	}
}

// anatomyRow is one row: a value per mode column, and for each comparison
// column the difference base − new and, where share says so (nil: never),
// its share of the pause difference. A NaN value or difference is shown
// as n/a.
func anatomyRow(label string, cols []column, value func(*report.Mode) float64, share func(base, new *report.Mode) bool) []string {
	row := []string{label}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "n/a"
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	for i, c := range cols {
		if c.mode != nil {
			row = append(row, num(value(c.mode)))
			continue
		}
		base, new := findMode(cols[:i], c.host, c.cmp.Base), findMode(cols[:i], c.host, c.cmp.New)
		if base == nil || new == nil {
			row = append(row, "", "")
			continue
		}
		d := value(base) - value(new)
		row = append(row, num(d))
		total := base.Summary.Mean - new.Summary.Mean
		if share != nil && total != 0 && !math.IsNaN(d) && share(base, new) {
			row = append(row, fmt.Sprintf("%.0f%%", 100*d/total))
		} else {
			row = append(row, "")
		}
	}
	return row
}

func findMode(cols []column, host, name string) *report.Mode {
	for _, c := range cols {
		if c.mode != nil && c.host == host && c.mode.Name == name {
			return c.mode
		}
	}
	return nil
}

// anatomyPanel draws one stacked bar per mode (per run), a segment per
// part, bottom to top in time order.
func anatomyPanel(r *report.Report) (*plot.Plot, error) {
	a := r.Anatomy
	ss := seriesOf(r)
	p := plot.New()
	p.Title.Text = "pause anatomy (mean per collection)"
	p.Y.Label.Text = "µs"
	p.Legend.Top, p.Legend.Left = true, true
	var below *plotter.BarChart
	width := vg.Points(40)
	for i, part := range a.Parts {
		vals := make(plotter.Values, len(ss))
		for j, s := range ss {
			vals[j] = s.mode.CounterMeans[part.Key]
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("render: anatomy plot: %w", err)
		}
		bars.Color = seriesColor(i, 220)
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(part.Label, bars)
	}
	names := make([]string, len(ss))
	for j, s := range ss {
		names[j] = s.label
	}
	p.NominalX(names...)
	// Headroom above the tallest bar for the legend, one line per part.
	p.Y.Min, p.Y.Max = 0, p.Y.Max*(1+0.12*float64(len(a.Parts)))
	return p, nil
}
