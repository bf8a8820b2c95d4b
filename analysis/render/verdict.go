package render

import (
	"fmt"
	"math"

	"github.com/gcbench/gcbench/analysis/report"
)

// VerdictLine is the one sentence a reader needs first, the one wording of
// a run's verdict in every format:
//
//	batch vs perjob: pauses 4.5% shorter (TrimMean 10%, 95% CI 3.1–5.9%, p < 0.001, 1500 collections each)
//	batch vs perjob: no significant difference (p = 0.93)
//
// A difference is stated only when the Mann–Whitney p-value is below
// stats.Alpha; "shorter" or "longer" follows the sign of the improvement
// on report.VerdictStatistic.
func VerdictLine(v report.Verdict) string {
	c := v.Delta
	head := c.New + " vs " + c.Base + ": "
	if !c.Significant {
		return head + fmt.Sprintf("no significant difference (p = %s)", verdictP(c.P))
	}
	if !v.Defined {
		return head + fmt.Sprintf("pauses differ (p %s), but %s of %s is 0", verdictPRelation(c.P), report.VerdictStatistic, c.Base)
	}
	dir := "shorter"
	if v.Improvement < 0 {
		dir = "longer"
	}
	detail := report.VerdictStatistic.String()
	if v.CI.Confidence > 0 {
		detail += fmt.Sprintf(", %.0f%% CI %.1f–%.1f%%", v.CI.Confidence*100, v.CI.Lo, v.CI.Hi)
	}
	detail += ", p " + verdictPRelation(c.P)
	if c.N1 == c.N2 {
		detail += fmt.Sprintf(", %d collections each", c.N1)
	} else {
		detail += fmt.Sprintf(", %d and %d collections", c.N1, c.N2)
	}
	return head + fmt.Sprintf("pauses %.1f%% %s (%s)", math.Abs(v.Improvement), dir, detail)
}

// verdictP writes a p-value at two significant digits, as a verdict
// needs no more ("0.93").
func verdictP(p float64) string { return fmt.Sprintf("%.2g", p) }

// verdictPRelation is "< 0.001" for a p-value too small to write, else
// "= 0.012".
func verdictPRelation(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return "= " + verdictP(p)
}

// verdictLines are a report's verdicts, one per run, each prefixed with
// its run's label when the report merges several.
func verdictLines(r *report.Report) []string {
	var lines []string
	labels := runLabels(r)
	for i, run := range r.Runs {
		v, ok := run.Verdict()
		if !ok {
			continue
		}
		line := VerdictLine(v)
		if labels[i] != "" {
			line = labels[i] + ": " + line
		}
		lines = append(lines, line)
	}
	return lines
}
