package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

// RunsLine is the headline of a comparison across repeated runs, in the
// words of VerdictLine:
//
//	batch vs perjob over 3 runs: median 4.2% shorter (runs 3.1–5.0%, 95% bootstrap interval 2.7–5.8%)
//
// "shorter" or "longer" follows the sign of the median improvement on
// report.VerdictStatistic; the runs' range and the interval are then
// given in that direction (a run that went the other way is negative).
func RunsLine(c report.RunsComparison) string {
	sign, dir := 1.0, "shorter"
	if c.Median < 0 {
		sign, dir = -1, "longer"
	}
	lo, hi := sign*c.Lo, sign*c.Hi
	blo, bhi := sign*c.Bootstrap.Lo, sign*c.Bootstrap.Hi
	if sign < 0 {
		lo, hi, blo, bhi = hi, lo, bhi, blo
	}
	return fmt.Sprintf("%s vs %s over %d runs: median %s%% %s (runs %s%%, %.0f%% bootstrap interval %s%%)",
		c.New, c.Base, len(c.Runs), Float(math.Abs(c.Median), 1), dir, span(lo, hi), c.Bootstrap.Confidence*100, span(blo, bhi))
}

// span is "lo–hi" at one decimal, or "lo to hi" when lo is negative,
// where a dash after a minus sign would read as a second minus.
func span(lo, hi float64) string {
	if Float(lo, 1)[0] == '-' {
		return Float(lo, 1) + " to " + Float(hi, 1)
	}
	return Float(lo, 1) + "–" + Float(hi, 1)
}

// RunsTable is a runs summary as a table: the headlines (RunsLine, the
// verdict's comparison first), then a row per run and the median, range
// and bootstrap interval, with a column pair (improvement, interval) per
// comparison.
func RunsTable(s *report.RunsSummary) *Table {
	st := report.VerdictStatistic.String()
	t := &Table{
		Title: fmt.Sprintf("gcbench: %d runs of one configuration, %s", len(s.Sources), s.Title),
		Facts: []Fact{{Key: "config", Value: s.Config.String(), Verbatim: true}},
	}
	h := s.Host
	t.Facts = append(t.Facts, Fact{Key: "host", Value: fmt.Sprintf("%s; %s; %d cores; GOMAXPROCS %d; %s %s/%s",
		h.Label(), h.CPUModel, h.Cores, h.GOMAXPROCS, h.GoVersion, h.OS, h.Arch)})
	for i := len(s.Comparisons) - 1; i >= 0; i-- {
		t.Lead = append(t.Lead, RunsLine(s.Comparisons[i]))
	}
	head := []string{"run"}
	for i := len(s.Comparisons) - 1; i >= 0; i-- {
		c := s.Comparisons[i]
		head = append(head, fmt.Sprintf("%s vs %s: %s improvement", c.New, c.Base, st), "95% CI")
	}
	t.Header = [][]string{head}
	for r, src := range s.Sources {
		line := []string{fmt.Sprintf("run %d", r+1)}
		for i := len(s.Comparisons) - 1; i >= 0; i-- {
			f := s.Comparisons[i].Runs[r]
			line = append(line, signedPct(f.Improvement), intervalPct(f.CI))
		}
		t.Rows = append(t.Rows, line)
		t.Facts = append(t.Facts, Fact{Key: fmt.Sprintf("run %d", r+1), Value: src})
	}
	median, rng, boot := []string{"median"}, []string{"range"}, []string{"bootstrap interval"}
	for i := len(s.Comparisons) - 1; i >= 0; i-- {
		c := s.Comparisons[i]
		median = append(median, signedPct(c.Median), "")
		rng = append(rng, signedPct(c.Lo)+" to "+signedPct(c.Hi), "")
		boot = append(boot, "", intervalPct(c.Bootstrap))
	}
	t.Rows = append(t.Rows, median, rng, boot)
	n := s.Comparisons[0].Runs[0]
	t.Notes = []string{
		fmt.Sprintf("Improvement = (base − new) / base of %s, per run (%d and %d collections): positive means shorter pauses; "+
			"its 95%% CI is the run's own, as its verdict states it (delta method).", st, n.N1, n.N2),
		fmt.Sprintf("Median and range: over the %d runs. Bootstrap interval: %.0f%% percentile bootstrap of the median, "+
			"%d resamples (seeded, so the same files give the same interval), each drawing every run's collections with replacement "+
			"within its run and mode and taking the median over the runs of the recomputed improvements; "+
			"it covers the collections' noise within each run, the range the spread between runs.",
			len(s.Sources), stats.MedianConfidence*100, stats.BootstrapResamples),
		fmt.Sprintf("Below: the median run (run %d, whose %s vs %s improvement is the median), in full.",
			s.MedianRun+1, s.Verdict().New, s.Verdict().Base),
	}
	return t
}

// signedPct is an improvement as a cell: "+4.2%".
func signedPct(v float64) string {
	s := Float(v, 1)
	if !strings.HasPrefix(s, "-") && s != "0.0" {
		s = "+" + s
	}
	return s + "%"
}

// intervalPct is an interval of improvements as a cell, "[2.7, 5.8]", or
// "" when there is none.
func intervalPct(iv stats.Interval) string {
	if iv.Confidence == 0 {
		return ""
	}
	return "[" + Float(iv.Lo, 1) + ", " + Float(iv.Hi, 1) + "]"
}

// WriteRuns writes a runs summary in format f: in Text and Markdown its
// table (RunsTable), then the median run's full report (Write); in JSON
// the summary alone (report.RunsSummary.WriteJSON). Other formats are an
// error wrapping ErrInvalidInput.
func WriteRuns(w io.Writer, s *report.RunsSummary, f Format) error {
	switch f {
	case JSON:
		return s.WriteJSON(w)
	case Text, Markdown:
		if err := RunsTable(s).Write(w, f); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return Write(w, s.Median, f)
	}
	return fmt.Errorf("%w: a runs summary has no %v rendering (text, markdown or json)", ErrInvalidInput, f)
}

// RunsScalingTable is a runs summary of sweeps: per point, its varying
// keys, each sweep's TrimMean 10% ratio new/base, their median and range.
func RunsScalingTable(s *report.RunsScaling) *Table {
	ratio := s.New + "/" + s.Base
	t := &Table{Title: fmt.Sprintf("gcbench: scaling of %s against %s, %d sweeps of one grid (%d points)",
		s.New, s.Base, len(s.Sources), len(s.Points))}
	if fixed := fixedConfig(s.Sweeps[0]); len(fixed) > 0 {
		t.Facts = append(t.Facts, Fact{Key: "config", Value: strings.Join(fixed, " "), Verbatim: true})
	}
	if len(s.Sweeps[0].Points) > 0 {
		t.Facts = append(t.Facts, Fact{Key: "host", Value: s.Sweeps[0].Points[0].Host})
	}
	for i, src := range s.Sources {
		t.Facts = append(t.Facts, Fact{Key: fmt.Sprintf("run %d", i+1), Value: src})
	}
	head := append([]string{}, s.Keys...)
	for i := range s.Sources {
		head = append(head, fmt.Sprintf("run %d TrimMean 10%% %s", i+1, ratio))
	}
	head = append(head, "median "+ratio, "range")
	t.Header = [][]string{head}
	for _, p := range s.Points {
		row := make([]string, 0, len(head))
		for _, k := range s.Keys {
			row = append(row, report.ScalingPoint{Config: p.Config}.Value(k))
		}
		for _, r := range p.Ratios {
			row = append(row, fmtRatio(r.Value))
		}
		row = append(row, fmtRatio(p.Median), fmtRatio(p.Lo)+"–"+fmtRatio(p.Hi))
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{fmt.Sprintf("Ratio = %s's TrimMean 10%% / %s's, per point and run: below 1 means %s's pauses are shorter. "+
		"Median and range: over the %d runs (sweeps) of the grid, each measuring every point once; "+
		"each run's own 95%% bootstrap interval is in its scaling table (gcbench report DIR).",
		s.New, s.Base, s.New, len(s.Sources))}
	for i, sc := range s.Sweeps {
		for _, p := range sc.Points {
			if p.Partial != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("PARTIAL: run %d, %s: %s", i+1, p.Config, p.Partial))
			}
		}
	}
	return t
}

// WriteRunsScaling writes a runs summary of sweeps in format f: its table
// (RunsScalingTable) in Text and Markdown, the summary in JSON. Other
// formats are an error wrapping ErrInvalidInput.
func WriteRunsScaling(w io.Writer, s *report.RunsScaling, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	case Text, Markdown:
		return RunsScalingTable(s).Write(w, f)
	}
	return fmt.Errorf("%w: a runs summary of sweeps has no %v rendering (text, markdown or json)", ErrInvalidInput, f)
}
