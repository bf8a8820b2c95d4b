package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTrimMeanStandardErrorWithoutTrimmingIsTheMeans: with nothing cut
// (p = 0) Yuen's error is the plain standard error of the mean.
func TestTrimMeanStandardErrorWithoutTrimmingIsTheMeans(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 10}
	if got, want := TrimMeanStandardError(xs, 0), StandardError(xs); math.Abs(got-want) > 1e-12 {
		t.Errorf("p = 0: %v, want the mean's %v", got, want)
	}
}

// TestTrimMeanStandardErrorIgnoresTheCutTails: an outlier beyond the cut
// moves the winsorized sample not at all.
func TestTrimMeanStandardErrorIgnoresTheCutTails(t *testing.T) {
	xs := make([]float64, 20) // p = 0.10 of 20 cuts one point per tail
	for i := range xs {
		xs[i] = float64(i)
	}
	a := TrimMeanStandardError(xs, 0.10)
	xs[19] = 1e9
	if b := TrimMeanStandardError(xs, 0.10); a != b || a == 0 {
		t.Errorf("an outlier in the cut tail moved the error: %v then %v", a, b)
	}
}

// TestTrimMeanRatioAgreesWithTheBootstrap: on a large sample the delta
// method's interval and RatioOf's bootstrap agree within a tenth of the
// interval's width at each end.
func TestTrimMeanRatioAgreesWithTheBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base, new := make([]float64, 1500), make([]float64, 1500)
	for i := range base {
		base[i] = 1000 + 200*rng.ExpFloat64()
		new[i] = 950 + 200*rng.ExpFloat64()
	}
	delta, err := TrimMeanRatio(base, new, 0.10)
	if err != nil {
		t.Fatal(err)
	}
	boot, err := RatioOf(base, new, TrimMean10)
	if err != nil {
		t.Fatal(err)
	}
	width := boot.CI.Hi - boot.CI.Lo
	if delta.Value != boot.Value || math.Abs(delta.CI.Lo-boot.CI.Lo) > width/10 || math.Abs(delta.CI.Hi-boot.CI.Hi) > width/10 {
		t.Errorf("delta method %+v, bootstrap %+v", delta, boot)
	}
}

func TestTrimMeanRatioRefusesWhatHasNoLog(t *testing.T) {
	for _, c := range [][2][]float64{{nil, {1}}, {{0, 0}, {1, 2}}} {
		if _, err := TrimMeanRatio(c[0], c[1], 0.1); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("TrimMeanRatio(%v, %v): %v, want ErrInvalidInput", c[0], c[1], err)
		}
	}
}
