package render

import (
	"math"
	"testing"

	"github.com/gcbench/gcbench/analysis/stats"
)

func TestFloatNeverPrintsMinusZero(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{
		{-0.3, 0, "0"}, {math.Copysign(0, -1), 0, "0"}, {0.4, 0, "0"}, {-0.6, 0, "-1"}, {-12.4, 0, "-12"}, {1e-9, 0, "0"},
		{-0.001, 2, "0.00"}, {-0.006, 2, "-0.01"}, {1.2345678, 3, "1.235"},
	} {
		if got := Float(c.v, c.prec); got != c.want {
			t.Errorf("Float(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

func TestRangeShowsBothEnds(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		prec int
		want string
	}{
		{nil, 2, ""}, // an empty sample has no range
		{[]float64{3, 1, 2}, 2, "1.00–3.00"},
		{[]float64{2.1, 1.9}, 0, "2–2"}, // ends that read the same are both shown
		{[]float64{-0.2, 1}, 0, "0–1"},  // each end as Float spells it
	} {
		if got := Range(stats.SpreadOf(c.xs), c.prec); got != c.want {
			t.Errorf("Range(SpreadOf(%v), %d) = %q, want %q", c.xs, c.prec, got, c.want)
		}
	}
}
