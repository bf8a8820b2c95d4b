package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TrimMeanStandardError returns Yuen's standard error of TrimMean(sorted,
// p): √((n−1)·s_w² / (h·(h−1))), where s_w² is the sample variance of the
// sample winsorized at TrimMean's cut (each cut point replaced by the
// nearest kept one) and h the number of points kept. It is 0 for fewer
// than two kept points. sorted must be ascending.
func TrimMeanStandardError(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n < 2 {
		return 0
	}
	k := trimPerTail(n, p)
	h := n - 2*k
	if h < 2 {
		return 0
	}
	w := slices.Clone(sorted)
	for i := range k {
		w[i], w[n-1-i] = sorted[k], sorted[n-1-k]
	}
	return math.Sqrt(float64(n-1) * stat.Variance(w, nil) / float64(h*(h-1)))
}

// TrimMeanRatio returns TrimMean(new, p)/TrimMean(base, p) with an
// interval at MedianConfidence from the delta method on the log of the
// ratio, each trimmed mean's error Yuen's (TrimMeanStandardError):
// ratio·exp(±z·√((se_new/new)² + (se_base/base)²)). Unlike RatioOf's
// bootstrap it costs one sort of each sample, so a report of any size
// can state it at once. Neither sample is modified. It returns an error
// wrapping ErrInvalidInput for an empty sample or a trimmed mean that is
// not positive (the log needs one).
func TrimMeanRatio(base, new []float64, p float64) (Ratio, error) {
	if len(base) == 0 || len(new) == 0 {
		return Ratio{}, fmt.Errorf("%w: a ratio needs two non-empty samples", ErrInvalidInput)
	}
	sb, sn := slices.Sorted(slices.Values(base)), slices.Sorted(slices.Values(new))
	tb, tn := TrimMean(sb, p), TrimMean(sn, p)
	if !(tb > 0 && tn > 0) {
		return Ratio{}, fmt.Errorf("%w: trimmed means %g and %g, want both positive", ErrInvalidInput, tb, tn)
	}
	r := tn / tb
	z := distuv.UnitNormal.Quantile(1 - (1-MedianConfidence)/2)
	spread := z * math.Hypot(TrimMeanStandardError(sn, p)/tn, TrimMeanStandardError(sb, p)/tb)
	lo, hi := r*math.Exp(-spread), r*math.Exp(spread)
	if math.IsInf(r, 0) || math.IsInf(hi, 0) {
		return Ratio{}, fmt.Errorf("%w: the ratio %g / %g is too large for a float64", ErrInvalidInput, tn, tb)
	}
	return Ratio{Value: r, CI: Interval{Lo: lo, Hi: hi, Confidence: MedianConfidence}}, nil
}
