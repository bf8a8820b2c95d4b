package stats

import (
	"testing"
)

func mode(t *testing.T, name string, xs ...float64) Sample {
	t.Helper()
	return Sample{Name: name, Values: xs, Summary: Summarize(xs)}
}

func TestDeltaOfImprovement(t *testing.T) {
	base := mode(t, "perjob", 100, 200, 300, 400, 500)
	new := mode(t, "batch", 50, 100, 150, 200, 250)
	c := DeltaOf(base, new)
	if c.Base != "perjob" || c.New != "batch" || c.N1 != 5 || c.N2 != 5 {
		t.Errorf("DeltaOf = %+v", c)
	}
	for _, st := range AllStatistics() {
		got, ok := c.ImprovementOf(st)
		if !ok || !near(got, 50) { // every statistic halves: (b − b/2)/b = 50%
			t.Errorf("improvement of %s = %v, %v; want 50", st, got, ok)
		}
	}
	worse := DeltaOf(new, base)
	if got, _ := worse.ImprovementOf(Mean); !near(got, -100) {
		t.Errorf("improvement of a doubling = %v, want -100", got)
	}
}

func TestDeltaOfUndefinedImprovement(t *testing.T) {
	c := DeltaOf(mode(t, "a", 5, 5, 5), mode(t, "b", 4, 5, 6))
	if _, ok := c.ImprovementOf(Stdev); ok { // base stdev is 0
		t.Errorf("improvement over a zero base stdev should be undefined: %v", c.Improvement)
	}
	if got, ok := c.ImprovementOf(Mean); !ok || got != 0 {
		t.Errorf("mean improvement = %v, %v; want 0", got, ok)
	}
}

func TestDeltaOfSignificance(t *testing.T) {
	var lo, hi, lo2 []float64
	for i := range 40 {
		lo = append(lo, 100+float64(i))
		lo2 = append(lo2, 100.5+float64(i))
		hi = append(hi, 300+float64(i))
	}
	if c := DeltaOf(mode(t, "lo", lo...), mode(t, "hi", hi...)); !c.Significant || c.P >= 1e-6 {
		t.Errorf("disjoint samples: p = %v, significant = %v", c.P, c.Significant)
	}
	if c := DeltaOf(mode(t, "lo", lo...), mode(t, "lo2", lo2...)); c.Significant || c.P < 0.5 {
		t.Errorf("interleaved samples: p = %v, significant = %v", c.P, c.Significant)
	}
	if c := DeltaOf(mode(t, "a", 1, 1, 1), mode(t, "b", 1, 1, 1)); c.P != 1 || c.Significant {
		t.Errorf("identical constant samples: p = %v", c.P)
	}
}

// TestDeltaOfPIsSymmetricAndNotZero: two large samples far apart have a
// tiny p-value, the same whichever is the base; the normal approximation's
// upper tail had rounded it to 0 one way round.
func TestDeltaOfPIsSymmetricAndNotZero(t *testing.T) {
	slow, fast := make([]float64, 300), make([]float64, 300)
	for i := range slow {
		slow[i], fast[i] = 2000+float64(i), 1000+float64(i)
	}
	a, b := Sample{Name: "slow", Values: slow}, Sample{Name: "fast", Values: fast}
	ab, ba := DeltaOf(a, b).P, DeltaOf(b, a).P
	if ab != ba || ab <= 0 || ab >= 1e-6 {
		t.Fatalf("P(slow, fast) = %g, P(fast, slow) = %g; want the same tiny positive value", ab, ba)
	}
}
