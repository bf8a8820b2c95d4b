package stats

import (
	"math"
	"testing"
)

func TestStandardError(t *testing.T) {
	// 1..4: stdev √(5/3), n 4.
	if got, want := StandardError([]float64{1, 2, 3, 4}), math.Sqrt(5.0/3)/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("StandardError(1..4) = %v, want %v", got, want)
	}
	if got := StandardError([]float64{7}); got != 0 {
		t.Errorf("StandardError of one value = %v, want 0", got)
	}
}

func TestMeanDifferenceNoise(t *testing.T) {
	// 1.959964 × √(3² + 4²) = 9.79982
	if got := MeanDifferenceNoise(3, 4); math.Abs(got-9.79982) > 1e-5 {
		t.Errorf("MeanDifferenceNoise(3, 4) = %v, want 9.79982", got)
	}
	if got := MeanDifferenceNoise(0, 0); got != 0 {
		t.Errorf("MeanDifferenceNoise(0, 0) = %v, want 0", got)
	}
}
