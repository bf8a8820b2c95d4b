package render

import (
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/analysis/stats"
)

// Every table built from numbers outside this package (the seed
// protocols', the model check's) spells its numbers with Float and its
// ranges with Range, so that one figure reads the same in every table.

// Float is v at prec decimals as a table cell shows it, never "-0": a
// small negative that rounds to zero is 0, since a sign on a zero would
// claim a direction the figure does not have.
func Float(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-")
	}
	return s
}

// Range is a cell for the range of a sample, "lo–hi" with each end as
// Float spells it at prec decimals, or "" for an empty sample. Both ends
// are shown even when they read the same, so that a column of ranges
// always splits on its dash.
func Range(s stats.Spread, prec int) string {
	if s.N == 0 {
		return ""
	}
	return Float(s.Lo, prec) + "–" + Float(s.Hi, prec)
}
