package report

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
