package stats

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
	"gonum.org/v1/gonum/stat"
)

// MedianConfidence is the confidence level of every median interval.
const MedianConfidence = 0.95

// A Summary describes one sample. All values are in the sample's unit
// (microseconds for pauses). A zero Summary (N == 0) describes an empty
// sample.
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stdev  float64 `json:"stdev"` // sample standard deviation (n−1); 0 when N < 2
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Trim10 float64 `json:"trimmean10"` // TrimMean(x, 0.10), the spreadsheet's TRIMMEAN(range, 0.10)
	Trim25 float64 `json:"trimmean25"` // TrimMean(x, 0.25), the spreadsheet's TRIMMEAN(range, 0.25)
	Q1     float64 `json:"q1"`         // QuartileInc(x, 1), QUARTILE.INC(range, 1)
	Median float64 `json:"median"`     // QuartileInc(x, 2), QUARTILE.INC(range, 2) = MEDIAN(range)
	Q3     float64 `json:"q3"`         // QuartileInc(x, 3), QUARTILE.INC(range, 3)
	P90    float64 `json:"p90"`        // Quantile(x, 0.90), an observed value (type 1)
	P99    float64 `json:"p99"`        // Quantile(x, 0.99)
	P999   float64 `json:"p99.9"`      // Quantile(x, 0.999)
	// MedianCI is the distribution-free interval around the median at
	// MedianConfidence (or more); nil when the sample is too small for one
	// (fewer than 6 values).
	MedianCI *Interval `json:"median_ci,omitempty"`
}

// An Interval is a confidence interval [Lo, Hi] at level Confidence.
type Interval struct {
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
}

// Summarize computes the Summary of xs. It does not modify xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	s := Summary{
		N:      len(sorted),
		Stdev:  Stdev.Of(sorted),
		Mean:   Mean.Of(sorted),
		Min:    Min.Of(sorted),
		Max:    Max.Of(sorted),
		Trim10: TrimMean10.Of(sorted),
		Trim25: TrimMean25.Of(sorted),
		Q1:     Q1.Of(sorted),
		Median: Median.Of(sorted),
		Q3:     Q3.Of(sorted),
		P90:    P90.Of(sorted),
		P99:    P99.Of(sorted),
		P999:   P999.Of(sorted),
	}
	// benchmath sorts its input in place; sorted is our own copy.
	ci := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), MedianConfidence)
	if !math.IsInf(ci.Lo, 0) && !math.IsInf(ci.Hi, 0) {
		s.MedianCI = &Interval{Lo: ci.Lo, Hi: ci.Hi, Confidence: ci.Confidence}
	}
	return s
}

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of an ascending sample under
// the definition the package uses for tail percentiles (p90, p99, p99.9)
// and the CDF plots: Hyndman and Fan's type 1, the inverse of the empirical
// distribution function, i.e. the smallest x[i] whose empirical CDF value
// (i+1)/n is at least p (x[0] for p = 0). The result is always an observed
// value, never an interpolation between two. It is not the definition of
// the quartile rows; see [QuartileInc]. It panics if sorted is empty or p
// is outside [0, 1], like gonum's stat.Quantile.
func Quantile(sorted []float64, p float64) float64 {
	return stat.Quantile(p, stat.Empirical, sorted, nil)
}

// QuartileInc returns QUARTILE.INC(range, quart) (also spelled QUARTILE) of
// an ascending sample, as Excel and LibreOffice Calc compute it: the value
// at position h = (n−1)·quart/4 of the 0-based sorted sample, interpolated
// linearly between x[floor(h)] and the next order statistic (Hyndman and
// Fan's type 7, R's default). quart 0, 2 and 4 give the minimum, the
// median and the maximum. The position is computed in integers, so it is
// exact. It returns 0 for an empty sample, where a spreadsheet shows #NUM!,
// so that an empty Summary stays all zero; it panics if quart is outside
// 0..4.
func QuartileInc(sorted []float64, quart int) float64 {
	if quart < 0 || quart > 4 {
		panic("stats: QuartileInc quart outside 0..4")
	}
	if len(sorted) == 0 {
		return 0
	}
	h := (len(sorted) - 1) * quart
	i, frac := h/4, h%4
	if frac == 0 { // also keeps quart = 4 from reading past the end
		return sorted[i]
	}
	// The spreadsheets' form x[i] + f·(x[i+1] − x[i]), for the same rounding.
	return sorted[i] + float64(frac)/4*(sorted[i+1]-sorted[i])
}

// TrimMean returns TRIMMEAN(range, p) of an ascending sample, as Excel and
// LibreOffice Calc compute it: floor(n·p) points are excluded in total,
// rounded down to an even number and split evenly between the tails, so
// floor(floor(n·p)/2) points are cut from each end and the rest averaged.
// With p = 0.10 and n = 30 one point is cut from each end; with n = 10,
// none.
//
// When n·p lands a floating-point rounding error below an integer, the
// integer counts (LibreOffice also floors n·p approximately): p = 0.58 cuts
// 58 of 100 points although 100·0.58 is 57.99999999999999 in float64. At
// least one point is always kept, even when p is a rounding error below 1.
//
// It returns 0 for an empty sample, where a spreadsheet shows an error, so
// that an empty Summary stays all zero. It panics if p is NaN or outside
// [0, 1), the range LibreOffice accepts (p = 1 would cut every point).
func TrimMean(sorted []float64, p float64) float64 {
	if !(p >= 0 && p < 1) {
		panic("stats: TrimMean proportion outside [0, 1)")
	}
	if len(sorted) == 0 {
		return 0
	}
	k := trimPerTail(len(sorted), p)
	return stat.Mean(sorted[k:len(sorted)-k], nil)
}

// trimPerTail returns how many points TRIMMEAN cuts from each tail of n > 0
// points: floor(floor(n·p)/2), with n·p snapped up to an integer it misses
// by a rounding error only, and never so many that no point is left.
func trimPerTail(n int, p float64) int {
	x := float64(n) * p
	excluded := math.Floor(x)
	// float64(p) differs from the decimal the caller meant by at most
	// 2⁻⁵³·p relatively and the product rounds by at most 2⁻⁵³ more, so
	// x is within 2⁻⁵²·x of the intended n·p; allow twice that.
	if r := math.Round(x); r > excluded && r-x <= r*0x1p-51 {
		excluded = r
	}
	return min(int(excluded), n-1) / 2
}

// A Statistic names one number of a Summary; the table renderers and
// comparisons iterate over statistics.
type Statistic int

// The statistics: the seed table's rows first (P90 aside), then the rest.
const (
	Stdev Statistic = iota
	Mean
	TrimMean10
	TrimMean25
	Q1
	Median
	Q3
	P90
	P99
	P999
	Min
	Max
	numStatistics
)

// TableStatistics are the seed table's rows, in order.
var TableStatistics = []Statistic{Stdev, Mean, TrimMean10, TrimMean25, Q1, Median, Q3, P99}

// AllStatistics lists every Statistic.
func AllStatistics() []Statistic {
	all := make([]Statistic, numStatistics)
	for i := range all {
		all[i] = Statistic(i)
	}
	return all
}

var statisticNames = [numStatistics]struct{ label, key string }{
	Stdev:      {"Stdev", "stdev"},
	Mean:       {"Avg", "mean"},
	TrimMean10: {"TrimMean 10%", "trimmean10"},
	TrimMean25: {"TrimMean 25%", "trimmean25"},
	Q1:         {"Q1", "q1"},
	Median:     {"Q2", "median"},
	Q3:         {"Q3", "q3"},
	P90:        {"p90", "p90"},
	P99:        {"p99", "p99"},
	P999:       {"p99.9", "p99.9"},
	Min:        {"Min", "min"},
	Max:        {"Max", "max"},
}

// String returns the statistic's row label in the seed table ("Avg", "Q2").
func (st Statistic) String() string { return statisticNames[st].label }

// Key returns the statistic's machine name, the same as its JSON field name
// in Summary ("mean", "median").
func (st Statistic) Key() string { return statisticNames[st].key }

// Of computes statistic st of an ascending, non-empty sample: the one
// definition of each statistic, which Summarize uses too. The sample
// standard deviation of one value is 0.
func (st Statistic) Of(sorted []float64) float64 {
	switch st {
	case Stdev:
		if len(sorted) < 2 {
			return 0
		}
		return stat.StdDev(sorted, nil)
	case Mean:
		return stat.Mean(sorted, nil)
	case TrimMean10:
		return TrimMean(sorted, 0.10)
	case TrimMean25:
		return TrimMean(sorted, 0.25)
	case Q1:
		return QuartileInc(sorted, 1)
	case Median:
		return QuartileInc(sorted, 2)
	case Q3:
		return QuartileInc(sorted, 3)
	case P90:
		return Quantile(sorted, 0.90)
	case P99:
		return Quantile(sorted, 0.99)
	case P999:
		return Quantile(sorted, 0.999)
	case Min:
		return sorted[0]
	case Max:
		return sorted[len(sorted)-1]
	}
	panic(fmt.Sprintf("stats: unknown statistic %d", int(st)))
}

// Value returns statistic st of s.
func (s Summary) Value(st Statistic) float64 {
	switch st {
	case Stdev:
		return s.Stdev
	case Mean:
		return s.Mean
	case TrimMean10:
		return s.Trim10
	case TrimMean25:
		return s.Trim25
	case Q1:
		return s.Q1
	case Median:
		return s.Median
	case Q3:
		return s.Q3
	case P90:
		return s.P90
	case P99:
		return s.P99
	case P999:
		return s.P999
	case Min:
		return s.Min
	case Max:
		return s.Max
	}
	panic("stats: unknown Statistic")
}
