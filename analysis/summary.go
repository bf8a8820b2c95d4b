package analysis

import (
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
	Trim10 float64 `json:"trimmean10"` // mean after cutting floor(0.10·n) from each tail
	Trim25 float64 `json:"trimmean25"` // mean after cutting floor(0.25·n) from each tail
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p99.9"`
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
		Mean:   stat.Mean(sorted, nil),
		Min:    sorted[0],
		Max:    sorted[len(sorted)-1],
		Trim10: TrimmedMean(sorted, 0.10),
		Trim25: TrimmedMean(sorted, 0.25),
		Q1:     Quantile(sorted, 0.25),
		Median: Quantile(sorted, 0.50),
		Q3:     Quantile(sorted, 0.75),
		P90:    Quantile(sorted, 0.90),
		P99:    Quantile(sorted, 0.99),
		P999:   Quantile(sorted, 0.999),
	}
	if len(sorted) > 1 {
		s.Stdev = stat.StdDev(sorted, nil)
	}
	// benchmath sorts its input in place; sorted is our own copy.
	ci := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), MedianConfidence)
	if !math.IsInf(ci.Lo, 0) && !math.IsInf(ci.Hi, 0) {
		s.MedianCI = &Interval{Lo: ci.Lo, Hi: ci.Hi, Confidence: ci.Confidence}
	}
	return s
}

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of an ascending sample under
// the package's single definition (see the package documentation): the
// smallest x[i] whose empirical CDF value (i+1)/n is at least p. It panics
// if sorted is empty or p is outside [0, 1], like gonum's stat.Quantile.
func Quantile(sorted []float64, p float64) float64 {
	return stat.Quantile(p, stat.Empirical, sorted, nil)
}

// TrimmedMean returns the mean of an ascending sample after cutting
// floor(p·n) values from each tail (0 ≤ p < 0.5). It returns 0 for an
// empty sample and panics on p outside [0, 0.5).
func TrimmedMean(sorted []float64, p float64) float64 {
	if p < 0 || p >= 0.5 {
		panic("analysis: TrimmedMean proportion outside [0, 0.5)")
	}
	k := int(math.Floor(p * float64(len(sorted))))
	kept := sorted[k : len(sorted)-k]
	if len(kept) == 0 {
		return 0
	}
	return stat.Mean(kept, nil)
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
	panic("analysis: unknown Statistic")
}
