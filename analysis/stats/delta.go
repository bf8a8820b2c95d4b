package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Alpha is the significance level below which a Delta reports a
// difference (benchstat's default).
const Alpha = 0.05

// A Delta is how a new sample differs from a base sample: each
// statistic's improvement, and whether the difference is significant.
type Delta struct {
	Base string `json:"base"` // name of the base sample (a mode, in a report)
	New  string `json:"new"`  // name of the new sample
	// Improvement maps Statistic.Key() to (base − new) / base × 100:
	// positive means the new mode's statistic is smaller (better). A
	// statistic whose base is 0 is absent.
	Improvement map[string]float64 `json:"improvement_pct"`
	// P is the two-sided Mann–Whitney U test's p-value for "the two samples
	// come from the same distribution"; 1 when the test cannot be run (for
	// example, all values equal).
	P float64 `json:"p_value"`
	// Significant reports P < Alpha.
	Significant bool `json:"significant"`
	N1          int  `json:"n_base"`
	N2          int  `json:"n_new"`
}

// A Sample is a named set of observations with its Summary, as DeltaOf
// takes them: the caller has usually summarized them already.
type Sample struct {
	Name    string
	Values  []float64
	Summary Summary // Summarize(Values)
}

// DeltaOf returns the Delta of sample new from sample base, using their
// values and summaries. Neither is modified.
func DeltaOf(base, new Sample) Delta {
	c := Delta{Base: base.Name, New: new.Name, Improvement: make(map[string]float64), P: 1,
		N1: len(base.Values), N2: len(new.Values)}
	for _, st := range AllStatistics() {
		if v := improvement(base.Summary.Value(st), new.Summary.Value(st)); !math.IsNaN(v) && !math.IsInf(v, 0) {
			c.Improvement[st.Key()] = v // a ratio that overflows is as undefined as one over zero
		}
	}
	if c.N1 > 0 && c.N2 > 0 {
		// benchmath sorts samples in place: give it copies.
		s1 := benchmath.NewSample(slices.Clone(base.Values), &benchmath.DefaultThresholds)
		s2 := benchmath.NewSample(slices.Clone(new.Values), &benchmath.DefaultThresholds)
		c.P = mannWhitneyP(s1, s2)
	}
	c.Significant = c.P < Alpha
	return c
}

// mannWhitneyP is the two-sided Mann–Whitney p-value of a and b. The test
// is symmetric, but for large samples benchmath takes it from the normal
// approximation as 2·min(Φ(z), 1−Φ(z)), and 1−Φ(z) rounds to 0 once z is
// above about 8.3: asked with the samples one way round it said 0, the
// other way 8e-22. Asked both ways, the larger answer is the one whose
// tail did not cancel.
func mannWhitneyP(a, b *benchmath.Sample) float64 {
	return max(benchmath.AssumeNothing.Compare(a, b).P, benchmath.AssumeNothing.Compare(b, a).P)
}

// improvement is (base − new) / base × 100, NaN when base is 0 (and ±Inf
// when a subnormal base makes it overflow).
func improvement(base, new float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return (base - new) / base * 100
}

// ImprovementOf returns the improvement for st and whether it is defined.
func (c Delta) ImprovementOf(st Statistic) (pct float64, ok bool) {
	pct, ok = c.Improvement[st.Key()]
	return pct, ok
}
