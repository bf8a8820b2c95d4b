package stats

import "slices"

// A Spread is the range of a sample, its smallest and largest values: the
// run-to-run spread shown beside a median of a few repetitions, where an
// interval would claim more than a handful of runs can support.
type Spread struct {
	Lo, Hi float64
	N      int // the sample's size; 0 for an empty sample, whose Lo and Hi are 0
}

// SpreadOf returns the spread of xs, which it does not modify.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	return Spread{Lo: slices.Min(xs), Hi: slices.Max(xs), N: len(xs)}
}
