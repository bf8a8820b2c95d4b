package stats

import (
	"errors"
	"math"
	"testing"
)

func TestRatioOf(t *testing.T) {
	r, err := RatioOf(seq(100, 1), seq(100, 2), TrimMean10)
	if err != nil {
		t.Fatal(err)
	}
	if r.Value != 2 {
		t.Errorf("ratio of a sample and its double = %v, want 2", r.Value)
	}
	if !(r.CI.Lo < 2 && 2 < r.CI.Hi) || r.CI.Confidence != MedianConfidence {
		t.Errorf("interval %+v does not hold the ratio", r.CI)
	}
	again, _ := RatioOf(seq(100, 1), seq(100, 2), TrimMean10)
	if again != r {
		t.Errorf("the same samples gave another interval: %+v, then %+v", r, again)
	}
	wide, _ := RatioOf(seq(10, 1), seq(10, 2), Median)
	if wide.CI.Hi-wide.CI.Lo <= r.CI.Hi-r.CI.Lo {
		t.Errorf("10 samples gave an interval %+v no wider than 100 samples' %+v", wide.CI, r.CI)
	}
	if _, err := RatioOf(nil, seq(3, 1), Median); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("empty base: err = %v", err)
	}
	if _, err := RatioOf([]float64{0, 0, 0}, seq(3, 1), Median); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("zero base statistic: err = %v", err)
	}
}

// TestRatioOfRefusesUnboundedRatios: a ratio too large for a float64, and
// an interval whose upper end is unbounded because many resamples of a
// zero-heavy base have a zero statistic, are errors, not +Inf (which JSON
// cannot hold) or an interval narrowed by leaving those resamples out.
func TestRatioOfRefusesUnboundedRatios(t *testing.T) {
	for _, tc := range []struct {
		base, new []float64
		st        Statistic
	}{
		{[]float64{1e-320}, []float64{1e15}, Median},
		{[]float64{0, 0, 1}, []float64{1, 1, 1}, Mean},
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, seq(10, 1), TrimMean10},
	} {
		if _, err := RatioOf(tc.base, tc.new, tc.st); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%v / %v: %v, want ErrInvalidInput", tc.new, tc.base, err)
		}
	}
	few := append([]float64{0}, seq(39, 1)...) // one zero: a zero-mean resample is all but impossible
	r, err := RatioOf(few, seq(40, 2), Mean)
	if err != nil || !(r.CI.Lo <= r.Value && r.Value <= r.CI.Hi) || math.IsInf(r.CI.Hi, 0) {
		t.Fatalf("RatioOf with one zero in the base: %+v, %v", r, err)
	}
}

func seq(n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * float64(i+1)
	}
	return xs
}
