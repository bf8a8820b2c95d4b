package analysis

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestTrimmedMeanHandComputed(t *testing.T) {
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1000}, 0, 104.5},                   // nothing cut
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1000}, 0.10, 5.5},                  // floor(1) = 1 per tail: mean(2..9)
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1000}, 0.25, 5.5},                  // floor(2.5) = 2 per tail: mean(3..8)
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 900}, 0.10, 104},                      // floor(0.9) = 0: nothing cut
		{[]float64{1, 2, 3, 4, 100}, 0.25, 3},                                    // floor(1.25) = 1: mean(2, 3, 4)
		{[]float64{1, 2, 3, 4, 100}, 0.10, 22},                                   // floor(0.5) = 0
		{[]float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 1e6}, 0.25, 65}, // floor(3): mean(40..90)
		{[]float64{7}, 0.25, 7},
		{nil, 0.1, 0},
	}
	for _, tt := range tests {
		if got := TrimmedMean(tt.xs, tt.p); !near(got, tt.want) {
			t.Errorf("TrimmedMean(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
}

func TestTrimmedMeanRejectsBadProportion(t *testing.T) {
	for _, p := range []float64{-0.1, 0.5, 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("TrimmedMean(p=%v) did not panic", p)
				}
			}()
			TrimmedMean([]float64{1, 2, 3}, p)
		}()
	}
}

func TestQuantileHandComputed(t *testing.T) {
	// Type 1: x[ceil(p·n)−1], x[0] at p = 0.
	four := []float64{1, 2, 3, 4}
	five := []float64{10, 20, 30, 40, 50}
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{four, 0, 1}, {four, 0.25, 1}, {four, 0.26, 2}, {four, 0.5, 2}, {four, 0.75, 3}, {four, 0.76, 4}, {four, 1, 4},
		{five, 0.25, 20}, {five, 0.5, 30}, {five, 0.75, 40}, {five, 0.99, 50}, {five, 0.2, 10},
	}
	for _, tt := range tests {
		if got := Quantile(tt.xs, tt.p); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
}

// The documented definition, checked against a direct reading of it: the
// p-quantile is the smallest sample value whose ECDF value is ≥ p.
func TestQuantileIsInverseECDF(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), 1, 60).Draw(t, "xs")
		p := rapid.Float64Range(0, 1).Draw(t, "p")
		slices.Sort(xs)
		want := xs[len(xs)-1]
		for i, x := range xs {
			if float64(i+1)/float64(len(xs)) >= p {
				want = x
				break
			}
		}
		if got := Quantile(xs, p); got != want {
			t.Fatalf("Quantile(%v, %v) = %v, want %v", xs, p, got, want)
		}
	})
}

func TestSummarizeHandComputed(t *testing.T) {
	xs := []float64{9, 4, 2, 4, 5, 7, 4, 5} // sorted: 2 4 4 4 5 5 7 9
	s := Summarize(xs)
	if !slices.Equal(xs, []float64{9, 4, 2, 4, 5, 7, 4, 5}) {
		t.Fatal("Summarize modified its input")
	}
	want := Summary{N: 8, Mean: 5, Stdev: math.Sqrt(32.0 / 7), Min: 2, Max: 9,
		Trim10: 5, Trim25: 4.5, // cut 0; cut 2 per tail: mean(4, 4, 5, 5)
		Q1: 4, Median: 4, Q3: 5, P90: 9, P99: 9, P999: 9}
	for _, st := range AllStatistics() {
		if got, w := s.Value(st), want.Value(st); !near(got, w) {
			t.Errorf("%s = %v, want %v", st, got, w)
		}
	}
	if s.N != 8 {
		t.Errorf("N = %d", s.N)
	}
	if s.MedianCI == nil || s.MedianCI.Lo > s.Median || s.MedianCI.Hi < s.Median || s.MedianCI.Confidence < MedianConfidence {
		t.Errorf("MedianCI = %+v, want an interval around %v at ≥ %v", s.MedianCI, s.Median, MedianConfidence)
	}
}

func TestSummarizeSmallSamples(t *testing.T) {
	if s := Summarize(nil); s != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v, want zero", s)
	}
	s := Summarize([]float64{3})
	if s.N != 1 || s.Mean != 3 || s.Stdev != 0 || s.Median != 3 || s.P999 != 3 || s.MedianCI != nil {
		t.Errorf("Summarize([3]) = %+v", s)
	}
}

func TestStatisticNames(t *testing.T) {
	seen := map[string]bool{}
	for _, st := range AllStatistics() {
		if st.String() == "" || st.Key() == "" || seen[st.Key()] {
			t.Errorf("statistic %d: label %q key %q", int(st), st.String(), st.Key())
		}
		seen[st.Key()] = true
	}
	got := make([]string, len(TableStatistics))
	for i, st := range TableStatistics {
		got[i] = st.String()
	}
	want := []string{"Stdev", "Avg", "TrimMean 10%", "TrimMean 25%", "Q1", "Q2", "Q3", "p99"}
	if !slices.Equal(got, want) {
		t.Errorf("table rows %q, want %q", got, want)
	}
}
