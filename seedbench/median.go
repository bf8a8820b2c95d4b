package seedbench

import (
	"math"
	"slices"

	"github.com/gcbench/gcbench/analysis"
)

// Median is the median of xs under gcbench's one quantile definition
// (analysis.Quantile at p = 0.5: an observed value, the lower middle one
// for an even count), so that a reported median is always a run that
// happened. It returns NaN for no values.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return analysis.Quantile(s, 0.5)
}
