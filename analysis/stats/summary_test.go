package stats

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

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
		// TRIMMEAN: floor(0.8) = 0 excluded; floor(2) = 2 excluded, 1 per
		// tail: mean(4, 4, 4, 5, 5, 7) = 29/6.
		Trim10: 5, Trim25: 29.0 / 6,
		// QUARTILE.INC at positions 7·q = 1.75, 3.5, 5.25:
		// 4 + 0.75·(4−4), 4 + 0.5·(5−4), 5 + 0.25·(7−5).
		Q1: 4, Median: 4.5, Q3: 5.5,
		P90: 9, P99: 9, P999: 9} // type 1: x[ceil(8p)−1] = x[7]
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
