package stats

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// A Ratio is new/base of one statistic of two samples, with a bootstrap
// confidence interval.
type Ratio struct {
	Value float64  `json:"value"`
	CI    Interval `json:"ci"`
}

// BootstrapResamples is how many resamples a ratio's interval is drawn
// from: enough that the 2.5% and 97.5% percentiles move by well under the
// interval's width from one seed to another (Efron and Tibshirani, An
// Introduction to the Bootstrap, ch. 13, suggest at least 1000).
const BootstrapResamples = 2000

// RatioOf returns st(new)/st(base) with a percentile-bootstrap interval at MedianConfidence: both samples
// are resampled with replacement, independently, BootstrapResamples times.
// The resampling is seeded from the samples' sizes, so the same samples
// always give the same interval. A resample whose base statistic is zero
// stands for an unbounded ratio. It returns an error wrapping
// ErrInvalidInput for an empty sample, a base statistic of zero, a ratio
// too large for a float64, or an interval whose ends are not finite (too
// many resamples with a zero base, in samples mostly of zeros).
func RatioOf(base, new []float64, st Statistic) (Ratio, error) {
	return RatioOfContext(context.Background(), base, new, st)
}

// ratioCheckEvery is how many resamples RatioOfContext draws between two
// looks at its context: a few milliseconds at thousands of samples.
const ratioCheckEvery = 32

// RatioOfContext is RatioOf, stopped by ctx during the bootstrap (which
// takes about a second at a few thousand samples): it then returns ctx's
// cause.
func RatioOfContext(ctx context.Context, base, new []float64, st Statistic) (Ratio, error) {
	stat := st.Of
	if len(base) == 0 || len(new) == 0 {
		return Ratio{}, fmt.Errorf("%w: a ratio needs two non-empty samples", ErrInvalidInput)
	}
	sb, sn := slices.Sorted(slices.Values(base)), slices.Sorted(slices.Values(new))
	den := stat(sb)
	if den == 0 {
		return Ratio{}, fmt.Errorf("%w: the base statistic is zero", ErrInvalidInput)
	}
	r := Ratio{Value: stat(sn) / den}
	if math.IsInf(r.Value, 0) {
		return Ratio{}, fmt.Errorf("%w: the ratio %g / %g is too large for a float64", ErrInvalidInput, stat(sn), den)
	}
	rng := rand.New(rand.NewPCG(uint64(len(base)), uint64(len(new))))
	ratios := make([]float64, 0, BootstrapResamples)
	rb, rn := make([]float64, len(base)), make([]float64, len(new))
	for i := range BootstrapResamples {
		if i%ratioCheckEvery == 0 && ctx.Err() != nil {
			return Ratio{}, context.Cause(ctx)
		}
		resample(rng, rb, sb)
		resample(rng, rn, sn)
		ratio := math.Inf(1) // a zero base: no bound, not a resample to leave out (that would narrow the interval)
		if d := stat(rb); d != 0 {
			ratio = stat(rn) / d
		}
		ratios = append(ratios, ratio)
	}
	slices.Sort(ratios)
	alpha := (1 - MedianConfidence) / 2
	r.CI = Interval{Lo: percentile(ratios, alpha), Hi: percentile(ratios, 1-alpha), Confidence: MedianConfidence}
	if math.IsInf(r.CI.Lo, 0) || math.IsInf(r.CI.Hi, 0) {
		return Ratio{}, fmt.Errorf("%w: the ratio's %.0f%% interval has no finite upper end: too many resamples of the base have a statistic of zero",
			ErrInvalidInput, 100*MedianConfidence)
	}
	return r, nil
}

// resample fills dst with draws from sorted (with replacement) and sorts
// it, as the statistics expect.
func resample(rng *rand.Rand, dst, sorted []float64) {
	for i := range dst {
		dst[i] = sorted[rng.IntN(len(sorted))]
	}
	slices.Sort(dst)
}

// percentile is the bootstrap's order statistic at p (type 1, as Quantile).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return Quantile(sorted, p)
}
