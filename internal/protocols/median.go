package protocols

import (
	"math"
	"slices"
)

// Median is the median of xs under gcbench's one quantile definition (the
// inverse empirical CDF, as in package analysis: x[ceil(n/2)-1] of the
// sorted values), so a reported median is always a run that happened — the
// lower middle one for an even count. It returns NaN for no values.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)+1)/2-1]
}
