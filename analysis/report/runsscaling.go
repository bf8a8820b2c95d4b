package report

import (
	"context"
	"fmt"
	"slices"

	"github.com/gcbench/gcbench/analysis/stats"
)

// A RunsScaling sets repeated sweeps of one grid on one host side by
// side: per point, each sweep's ratio new/base of the 10% trimmed mean
// (as Scaling gives it), their median and range.
type RunsScaling struct {
	Schema string `json:"schema"`
	Base   string `json:"base"`
	New    string `json:"new"`
	// Keys are the configuration keys that vary between points, as
	// Scaling's.
	Keys []string `json:"keys"`
	// Sweeps are the sweeps' first Scaling (the points in row order) and
	// the others, in argument order: Points[i].Ratios[j] is from Sweeps[j].
	Sweeps []*Scaling `json:"-"`
	// Sources name each sweep (a directory, say), in argument order.
	Sources []string           `json:"sources"`
	Points  []RunsScalingPoint `json:"points"`
}

// RunsScalingSchema marks a RunsScaling's JSON.
const RunsScalingSchema = "gcbench/runs-scaling/v1"

// A RunsScalingPoint is one point of a RunsScaling.
type RunsScalingPoint struct {
	Config Config `json:"config"`
	// Ratios are each sweep's TrimMean 10% ratio new/base at this point,
	// with its bootstrap interval, in the sweeps' order.
	Ratios []stats.Ratio `json:"trimmean10_ratios"`
	// Median is the median of the ratios' values; Lo and Hi their
	// smallest and largest.
	Median float64 `json:"median"`
	Lo     float64 `json:"min"`
	Hi     float64 `json:"max"`
}

// NewRunsScaling summarizes sweeps (each the points of one sweep, named
// by sources[i]) of one grid on one host: every sweep must have the same
// points (configurations) on the same host, each once. It returns an
// error wrapping ErrInvalidInput for fewer than two sweeps or a point
// without the modes, ErrConfigMismatch naming a point one sweep lacks or
// a host that differs, ErrDuplicateRun for a point twice in a sweep, or
// ctx's cause.
func NewRunsScaling(ctx context.Context, sweeps [][]*Report, sources []string, base, new string) (*RunsScaling, error) {
	if len(sweeps) < 2 || len(sources) != len(sweeps) {
		return nil, fmt.Errorf("%w: a runs summary of sweeps needs at least two sweeps, each named, got %d", ErrInvalidInput, len(sweeps))
	}
	s := &RunsScaling{Schema: RunsScalingSchema, Base: base, New: new, Sources: slices.Clone(sources)}
	for i, points := range sweeps {
		sc, err := NewScalingContext(ctx, points, base, new, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sources[i], err)
		}
		s.Sweeps = append(s.Sweeps, sc)
	}
	first := s.Sweeps[0]
	if hosts := first.Hosts(); len(hosts) != 1 {
		return nil, fmt.Errorf("%w: %s was measured on %d hosts; a runs summary is of one host", ErrConfigMismatch, sources[0], len(hosts))
	}
	s.Keys = first.Keys
	index := map[string]int{}
	for i, p := range first.Points {
		index[p.Config.Sorted().String()] = i
		s.Points = append(s.Points, RunsScalingPoint{Config: p.Config, Ratios: []stats.Ratio{p.TrimMean10}})
	}
	for j, sc := range s.Sweeps[1:] {
		name := sources[j+1]
		if len(sc.Points) != len(first.Points) {
			return nil, fmt.Errorf("%w: %s has %d points, %s %d: the sweeps must be of one grid",
				ErrConfigMismatch, name, len(sc.Points), sources[0], len(first.Points))
		}
		for _, p := range sc.Points {
			if p.Host != first.Points[0].Host {
				return nil, fmt.Errorf("%w: %s ran on %s, %s on %s: a runs summary is of one host",
					ErrConfigMismatch, name, p.Host, sources[0], first.Points[0].Host)
			}
			i, ok := index[p.Config.Sorted().String()]
			if !ok {
				return nil, fmt.Errorf("%w: %s has a point %s that %s lacks: the sweeps must be of one grid",
					ErrConfigMismatch, name, p.Config, sources[0])
			}
			s.Points[i].Ratios = append(s.Points[i].Ratios, p.TrimMean10)
		}
	}
	for i := range s.Points {
		p := &s.Points[i]
		vs := make([]float64, len(p.Ratios))
		for j, r := range p.Ratios {
			vs[j] = r.Value
		}
		slices.Sort(vs)
		p.Median, p.Lo, p.Hi = stats.Median.Of(vs), vs[0], vs[len(vs)-1]
	}
	return s, nil
}
