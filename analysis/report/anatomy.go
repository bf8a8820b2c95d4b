package report

import (
	"math"

	"github.com/gcbench/gcbench/analysis/stats"
)

// An Anatomy says which of a mode's per-collection counters are the parts
// of its pause, in time order, and which further counters explain them.
// The parts must add up to the pause in every collection; then their
// means add up to the mean pause (the mean is linear), and the difference
// between two modes' mean pauses is exactly the sum of the differences of
// their parts: the table attributes it part by part.
type Anatomy struct {
	Parts    []AnatomyRow `json:"parts"`
	Counters []AnatomyRow `json:"counters,omitempty"`
}

// An AnatomyRow is one counter of the anatomy: its key in
// Mode.CounterMeans and its label.
type AnatomyRow struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// Sum is the sum of m's part means: its mean pause, when the parts
// account for the whole of every collection's pause.
func (a *Anatomy) Sum(m *Mode) float64 {
	s := 0.0
	for _, p := range a.Parts {
		s += m.CounterMeans[p.Key]
	}
	return s
}

// HasAnatomy reports whether r splits its pauses into parts, that is
// whether a renderer has a pause anatomy to show.
func (r *Report) HasAnatomy() bool { return r.Anatomy != nil && len(r.Anatomy.Parts) > 0 }

// DifferenceIsNoise reports whether the difference base − new of the means
// of counter key (or of the pauses, for key "") lies within its own noise,
// stats.MeanDifferenceNoise of the two means' standard errors. known is
// false when a mode lacks the counter or its standard error (a report
// written before they were kept): then nothing is said of the noise.
func DifferenceIsNoise(base, new *Mode, key string) (noise, known bool) {
	if key == "" {
		d := base.Summary.Mean - new.Summary.Mean
		return math.Abs(d) <= stats.MeanDifferenceNoise(stats.StandardError(base.Pauses), stats.StandardError(new.Pauses)), true
	}
	bm, ok1 := base.CounterMeans[key]
	nm, ok2 := new.CounterMeans[key]
	be, ok3 := base.CounterErrors[key]
	ne, ok4 := new.CounterErrors[key]
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return false, false
	}
	return math.Abs(bm-nm) <= stats.MeanDifferenceNoise(be, ne), true
}
