package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// StandardError returns the standard error of the mean of xs: its sample
// standard deviation (n−1) over √n; 0 for fewer than two values, which
// have no spread to estimate it from.
func StandardError(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return stat.StdDev(xs, nil) / math.Sqrt(float64(len(xs)))
}

// MeanDifferenceNoise is the half-width of the normal-approximation
// interval, at MedianConfidence, of the difference of two independent
// sample means whose standard errors are se1 and se2: z·√(se1² + se2²)
// (Welch's). A difference of the means no larger than it cannot be told
// from noise at that confidence.
func MeanDifferenceNoise(se1, se2 float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - (1-MedianConfidence)/2)
	return z * math.Hypot(se1, se2)
}
