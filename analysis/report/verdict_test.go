package report

import (
	"math"
	"slices"
	"testing"

	"github.com/gcbench/gcbench/analysis/stats"
)

// TestVerdictIsTheLastComparisonOnItsStatistic: the verdict sets the last
// mode against the one before it, states the improvement the table shows
// on VerdictStatistic, and its interval holds that improvement.
func TestVerdictIsTheLastComparisonOnItsStatistic(t *testing.T) {
	a, b, c := make([]float64, 100), make([]float64, 100), make([]float64, 100)
	for i := range a {
		v := 100 + float64((i*13)%17)
		a[i], b[i], c[i] = 3*v, 2*v, v
	}
	run, err := NewRun(Host{}, []ModeInput{{Name: "serial", Pauses: a}, {Name: "perjob", Pauses: b}, {Name: "batch", Pauses: c}})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := run.Verdict()
	if !ok {
		t.Fatal("no verdict of three modes")
	}
	if v.Delta.Base != "perjob" || v.Delta.New != "batch" {
		t.Errorf("verdict compares %s with %s, want batch with perjob", v.Delta.New, v.Delta.Base)
	}
	want, _ := run.Comparisons[1].ImprovementOf(VerdictStatistic)
	if !v.Defined || v.Improvement != want || math.Abs(want-50) > 1e-9 {
		t.Errorf("improvement %v (defined %v), want the table's %v = 50", v.Improvement, v.Defined, want)
	}
	if !(v.CI.Lo <= v.Improvement && v.Improvement <= v.CI.Hi) || v.CI.Confidence != stats.MedianConfidence {
		t.Errorf("interval %+v does not hold %v", v.CI, v.Improvement)
	}
	if got := stats.TrimMean(slices.Sorted(slices.Values(c)), verdictTrim); got != run.Modes[2].Summary.Value(VerdictStatistic) {
		t.Errorf("verdictTrim is not VerdictStatistic's proportion: %v vs %v", got, run.Modes[2].Summary.Value(VerdictStatistic))
	}
}
