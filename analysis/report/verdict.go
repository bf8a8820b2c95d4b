package report

import (
	"github.com/gcbench/gcbench/analysis/stats"
)

// VerdictStatistic is the statistic a Verdict states: TrimMean 10%, the
// one SGen's measurements led with.
const VerdictStatistic = stats.TrimMean10

// verdictTrim is VerdictStatistic's proportion, as stats.TrimMeanRatio
// takes it.
const verdictTrim = 0.10

// A Verdict is a run's headline: the comparison the experiment exists for
// and how it came out on VerdictStatistic.
type Verdict struct {
	// Delta is the run's last comparison: its last mode against the mode before
	// it (batch vs perjob in the seed experiment, serial,perjob,batch).
	Delta stats.Delta
	// Improvement is Delta's improvement on VerdictStatistic (%,
	// positive: the new mode's pauses are shorter); Defined is false
	// when it has none (a base statistic of zero).
	Improvement float64
	Defined     bool
	// CI is the improvement's interval (%) from stats.TrimMeanRatio's
	// interval of the ratio new/base (a delta-method interval: it costs a
	// sort, where a bootstrap of a long run took seconds at every
	// rendering); its Confidence is 0 when there is none.
	CI stats.Interval
}

// Verdict returns the run's headline comparison, or false for a run of
// one mode, which compares nothing.
func (r Run) Verdict() (Verdict, bool) {
	if len(r.Comparisons) == 0 || len(r.Modes) < 2 {
		return Verdict{}, false
	}
	v := Verdict{Delta: r.Comparisons[len(r.Comparisons)-1]}
	v.Improvement, v.Defined = v.Delta.ImprovementOf(VerdictStatistic)
	base, new := r.Modes[len(r.Modes)-2], r.Modes[len(r.Modes)-1]
	if ratio, err := stats.TrimMeanRatio(base.Pauses, new.Pauses, verdictTrim); err == nil {
		// improvement = (1 − ratio)·100: the ratio's upper end is the improvement's lower.
		v.CI = stats.Interval{Lo: (1 - ratio.CI.Hi) * 100, Hi: (1 - ratio.CI.Lo) * 100, Confidence: ratio.CI.Confidence}
	}
	return v, true
}
