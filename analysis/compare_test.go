package analysis

import (
	"errors"
	"math"
	"testing"
)

func mode(t *testing.T, name string, xs ...float64) Mode {
	t.Helper()
	return Mode{Name: name, Pauses: xs, Summary: Summarize(xs)}
}

func TestCompareImprovement(t *testing.T) {
	base := mode(t, "perjob", 100, 200, 300, 400, 500)
	new := mode(t, "batch", 50, 100, 150, 200, 250)
	c := Compare(base, new)
	if c.Base != "perjob" || c.New != "batch" || c.N1 != 5 || c.N2 != 5 {
		t.Errorf("Compare = %+v", c)
	}
	for _, st := range AllStatistics() {
		got, ok := c.ImprovementOf(st)
		if !ok || !near(got, 50) { // every statistic halves: (b − b/2)/b = 50%
			t.Errorf("improvement of %s = %v, %v; want 50", st, got, ok)
		}
	}
	worse := Compare(new, base)
	if got, _ := worse.ImprovementOf(Mean); !near(got, -100) {
		t.Errorf("improvement of a doubling = %v, want -100", got)
	}
}

func TestCompareUndefinedImprovement(t *testing.T) {
	c := Compare(mode(t, "a", 5, 5, 5), mode(t, "b", 4, 5, 6))
	if _, ok := c.ImprovementOf(Stdev); ok { // base stdev is 0
		t.Errorf("improvement over a zero base stdev should be undefined: %v", c.Improvement)
	}
	if got, ok := c.ImprovementOf(Mean); !ok || got != 0 {
		t.Errorf("mean improvement = %v, %v; want 0", got, ok)
	}
}

func TestCompareSignificance(t *testing.T) {
	var lo, hi, lo2 []float64
	for i := range 40 {
		lo = append(lo, 100+float64(i))
		lo2 = append(lo2, 100.5+float64(i))
		hi = append(hi, 300+float64(i))
	}
	if c := Compare(mode(t, "lo", lo...), mode(t, "hi", hi...)); !c.Significant || c.P >= 1e-6 {
		t.Errorf("disjoint samples: p = %v, significant = %v", c.P, c.Significant)
	}
	if c := Compare(mode(t, "lo", lo...), mode(t, "lo2", lo2...)); c.Significant || c.P < 0.5 {
		t.Errorf("interleaved samples: p = %v, significant = %v", c.P, c.Significant)
	}
	if c := Compare(mode(t, "a", 1, 1, 1), mode(t, "b", 1, 1, 1)); c.P != 1 || c.Significant {
		t.Errorf("identical constant samples: p = %v", c.P)
	}
}

func TestNewRunComparesLastModeWithEachEarlier(t *testing.T) {
	run, err := NewRun(fixtureHost, fixtureInputs())
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Comparisons) != 2 {
		t.Fatalf("%d comparisons, want 2", len(run.Comparisons))
	}
	for i, base := range []string{"serial", "perjob"} {
		if c := run.Comparisons[i]; c.Base != base || c.New != "batch" {
			t.Errorf("comparison %d = %s vs %s", i, c.New, c.Base)
		}
	}
	serial := run.Modes[0]
	if serial.DisturbedCount != 2 || serial.CounterMeans["jobs"] != 17 || !near(serial.CounterMeans["wake_calls"], 199.0/200) {
		t.Errorf("serial mode: disturbed %d, counters %v", serial.DisturbedCount, serial.CounterMeans)
	}
}

func TestNewRunRejectsBadInput(t *testing.T) {
	ok := []float64{1, 2}
	tests := map[string][]ModeInput{
		"no modes":     nil,
		"no name":      {{Pauses: ok}},
		"no samples":   {{Name: "a"}},
		"NaN":          {{Name: "a", Pauses: []float64{1, math.NaN()}}},
		"Inf":          {{Name: "a", Pauses: []float64{math.Inf(1)}}},
		"duplicate":    {{Name: "a", Pauses: ok}, {Name: "a", Pauses: ok}},
		"bad index":    {{Name: "a", Pauses: ok, Disturbed: []int{2}}},
		"NaN counter":  {{Name: "a", Pauses: ok, Counters: map[string][]float64{"c": {math.NaN()}}}},
		"negative idx": {{Name: "a", Pauses: ok, Disturbed: []int{-1}}},
		"negative":     {{Name: "a", Pauses: []float64{-1}}},
		"huge":         {{Name: "a", Pauses: []float64{1e308, 1e308}}},
	}
	for name, in := range tests {
		if _, err := NewRun(fixtureHost, in); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", name, err)
		}
	}
}

func TestNewRunCopiesInputs(t *testing.T) {
	in := []ModeInput{{Name: "a", Pauses: []float64{3, 1, 2}, Disturbed: []int{0}}}
	run, err := NewRun(fixtureHost, in)
	if err != nil {
		t.Fatal(err)
	}
	in[0].Pauses[0], in[0].Disturbed[0] = 99, 2
	if run.Modes[0].Pauses[0] != 3 || run.Modes[0].Disturbed[0] != 0 {
		t.Error("NewRun retained its input slices")
	}
}

// TestComparePIsSymmetricAndNotZero: two large samples far apart have a
// tiny p-value, the same whichever is the base; the normal approximation's
// upper tail had rounded it to 0 one way round.
func TestComparePIsSymmetricAndNotZero(t *testing.T) {
	slow, fast := make([]float64, 300), make([]float64, 300)
	for i := range slow {
		slow[i], fast[i] = 2000+float64(i), 1000+float64(i)
	}
	a, b := Mode{Name: "slow", Pauses: slow}, Mode{Name: "fast", Pauses: fast}
	ab, ba := Compare(a, b).P, Compare(b, a).P
	if ab != ba || ab <= 0 || ab >= 1e-6 {
		t.Fatalf("P(slow, fast) = %g, P(fast, slow) = %g; want the same tiny positive value", ab, ba)
	}
}
