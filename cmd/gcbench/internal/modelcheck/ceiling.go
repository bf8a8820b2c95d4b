package modelcheck

import (
	"fmt"
	"math"

	"github.com/gcbench/gcbench/analysis/stats"
)

// A ceiling is the most points check 3 could count inside on the sweeps
// given, with envelopes as wide as the model's: each point's envelopes,
// perjob's and batch's, scaled by the one factor each that holds most of
// the point's repeats. A model whose error at a point is a factor — its
// jobs, or its dispatch, priced too high or too low there — moves all of
// the point's envelopes alike, since every repeat is priced by its own
// serial collections; so repeats that disagree by more than an envelope
// is wide cannot all be inside, whatever such a model predicts. It
// separates what a better model could win from what the measurements'
// own spread forbids.
type ceiling struct {
	Inside   int // points a best-scaled envelope holds, both means
	Points   int // every point
	Repeated int // points measured more than once with serial collections: the only ones the spread can fail
}

// envelopeCeiling is vals' ceiling. A point measured once, or a repeat
// without serial collections to price it, counts as inside: nothing
// says a model could not hold it.
func envelopeCeiling(vals []validation) ceiling {
	groups := map[pointKey][]validation{}
	var order []pointKey
	for _, v := range vals {
		k := key(v)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], v)
	}
	var c ceiling
	for _, k := range order {
		g := groups[k]
		c.Points += len(g)
		if len(g) < 2 || !allReferenced(g) {
			c.Inside += len(g)
			continue
		}
		c.Repeated += len(g)
		c.Inside += bestScaled(g)
	}
	return c
}

func allReferenced(g []validation) bool {
	for _, v := range g {
		if !v.Referenced {
			return false
		}
	}
	return true
}

// scales is the range of factors by which an envelope can be scaled and
// still hold a mean: [Lo, Hi], empty if Lo > Hi.
type scales struct{ Lo, Hi float64 }

func (s scales) holds(k float64) bool { return k >= s.Lo && k <= s.Hi }

// scalesFor is the factors k for which k·[lo, hi] holds the mean x within
// the tolerance inside allows it (taken at x, where the bound that
// decides lies): k·lo − tol ≤ x ≤ k·hi + tol.
func scalesFor(x, se, lo, hi, relSE float64) scales {
	lo, hi = math.Min(lo, hi), math.Max(lo, hi)
	tol := stats.MeanDifferenceNoise(se, relSE*x)
	s := scales{Lo: math.Inf(-1), Hi: math.Inf(1)}
	if hi > 0 {
		s.Lo = (x - tol) / hi
	}
	if lo > 0 {
		s.Hi = (x + tol) / lo
	}
	return s
}

// bestScaled is the most of a point's repeats g that one factor for
// perjob's envelopes and one for batch's hold, both means. The best
// factor can be taken at the lower end of some repeat's range, so those
// are the only ones tried.
func bestScaled(g []validation) int {
	per := make([]scales, len(g))
	batch := make([]scales, len(g))
	for i, v := range g {
		per[i] = scalesFor(v.MeasuredPerJob, v.PerJobSE, v.PerJobLow, v.PerJobHigh, v.PredictionRelSE)
		batch[i] = scalesFor(v.MeasuredBatch, v.BatchSE, v.BatchLow, v.BatchHigh, v.PredictionRelSE)
	}
	best := 0
	for _, kp := range per {
		for _, kb := range batch {
			n := 0
			for i := range g {
				if per[i].holds(kp.Lo) && batch[i].holds(kb.Lo) {
					n++
				}
			}
			best = max(best, n)
		}
	}
	return best
}

// ceilingNote says vals' ceiling beside check 3's need.
func ceilingNote(vals []validation) string {
	c := envelopeCeiling(vals)
	if c.Repeated == 0 {
		return ""
	}
	return fmt.Sprintf("Check 3's ceiling on these sweeps: with each point's envelopes scaled by the one factor each (perjob, batch) "+
		"that holds most of its repeats, %d of %d points could be inside (%.0f%%, check 3 needs %.0f%%). A point's repeats are "+
		"each priced by their own serial collections, so a model wrong by a factor there moves them alike; repeats that "+
		"disagree by more than an envelope is wide cannot all be inside (%d points measured more than once).",
		c.Inside, c.Points, pct(c.Inside, c.Points), envelopeShare, c.Repeated)
}
