package tracestress

import "time"

// Document is a result's JSON form, as gcbench trace-stress writes it:
// the options, each policy's metrics under the seed table's column
// names, the Lockless/Locked ratio, and every run.
type Document struct {
	Options  Options             `json:"options"`
	Policies map[string][]metric `json:"policies"`
	Ratio    *Ratio              `json:"lockless_over_locked,omitempty"`
	Runs     []Run               `json:"runs"`
	Elapsed  time.Duration       `json:"elapsed_ns"`
	Partial  bool                `json:"partial,omitempty"`
}

// metric is a metric's JSON form, under the names trace-stress has
// always written.
type metric struct {
	Name, Unit string
	Spread     spread
}

type spread struct{ Min, Max, Mean, StdDev float64 }

// Document is the result's JSON form (its Options without Progress).
func (r *Result) Document() Document {
	d := Document{Options: r.Options, Policies: map[string][]metric{}, Ratio: r.LocklessOverLocked(),
		Runs: r.Runs, Elapsed: r.Elapsed, Partial: r.Partial}
	d.Options.Progress = nil
	for _, p := range r.Options.Policies {
		var ms []metric
		for _, m := range r.Metrics(p) {
			s := m.Summary
			ms = append(ms, metric{Name: m.Name, Unit: m.Unit, Spread: spread{s.Min, s.Max, s.Mean, s.Stdev}})
		}
		d.Policies[p.String()] = ms
	}
	return d
}
