package report

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/analysis/stats"
)

// A Scaling sets one mode against another across the points of a sweep:
// each point is one run of one configuration, and its row gives the
// ratio new/base of the 10% trimmed mean and of the median pause, each
// with a bootstrap interval, the Mann–Whitney p-value, and the means of
// chosen counters for both modes. A ratio below 1 means New's pauses are
// shorter.
type Scaling struct {
	// Schema is ScalingSchema in a Scaling this package made: a scaling
	// table is an output, rebuilt from its points, and ReadJSON says so
	// when it is given one.
	Schema string `json:"schema"`
	Base   string `json:"base"`
	New    string `json:"new"`
	// Keys are the configuration keys whose values differ between points,
	// in column order; rows are sorted by them (numbers as numbers).
	Keys     []string         `json:"keys"`
	Counters []ScalingCounter `json:"counters"`
	Points   []ScalingPoint   `json:"points"`
}

// ScalingSchema marks a Scaling's JSON.
const ScalingSchema = "gcbench/scaling/v1"

// A ScalingCounter is a counter the scaling table shows for both modes:
// as an anatomy's row, its key in Mode.CounterMeans and its label (the
// column heading), so that the counters' owner names both alike.
type ScalingCounter = AnatomyRow

// A ScalingPoint is one row of a Scaling.
type ScalingPoint struct {
	Config     Config             `json:"config"`
	Host       string             `json:"host"`
	Partial    string             `json:"partial,omitempty"`
	TrimMean10 stats.Ratio        `json:"trimmean10_ratio"`
	Median     stats.Ratio        `json:"median_ratio"`
	P          float64            `json:"p"`
	BaseMeans  map[string]float64 `json:"base_counter_means"`
	NewMeans   map[string]float64 `json:"new_counter_means"`
}

// NewScaling builds the scaling table of reports (each run of each report
// is a point) for modes base and new, which every run must have. Points
// that share a configuration and a host are an error wrapping
// ErrDuplicateRun: a sweep measures each point once.
func NewScaling(reports []*Report, base, new string, counters []ScalingCounter) (*Scaling, error) {
	return NewScalingContext(context.Background(), reports, base, new, counters)
}

// NewScalingContext is NewScaling, stopped by ctx within milliseconds, also
// inside a point's bootstrap (which takes a good part of a second at a few
// thousand samples): it then returns ctx's cause.
func NewScalingContext(ctx context.Context, reports []*Report, base, new string, counters []ScalingCounter) (*Scaling, error) {
	s := &Scaling{Schema: ScalingSchema, Base: base, New: new, Counters: counters}
	seen := map[string]bool{}
	for i, r := range reports {
		for _, run := range r.Runs {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			p, err := scalingPoint(ctx, r.Config, run, base, new, counters)
			if err != nil && ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.name(i), err)
			}
			id := p.Host + "\x00" + p.Config.Sorted().String()
			if seen[id] {
				return nil, fmt.Errorf("%w: %s repeats a point (%s on %s)", ErrDuplicateRun, r.name(i), p.Config, p.Host)
			}
			seen[id] = true
			s.Points = append(s.Points, p)
		}
	}
	if len(s.Points) == 0 {
		return nil, fmt.Errorf("%w: no points", ErrInvalidInput)
	}
	s.Keys = varyingKeys(s.Points)
	slices.SortStableFunc(s.Points, func(a, b ScalingPoint) int {
		for _, k := range s.Keys {
			if c := OrderValues(a.Value(k), b.Value(k)); c != 0 {
				return c
			}
		}
		return 0
	})
	return s, nil
}

func scalingPoint(ctx context.Context, config Config, run Run, base, new string, counters []ScalingCounter) (ScalingPoint, error) {
	bm, nm := run.Mode(base), run.Mode(new)
	if bm == nil || nm == nil {
		return ScalingPoint{}, fmt.Errorf("%w: the run on %s has modes %s, not both %s and %s",
			ErrInvalidInput, run.Host.Label(), strings.Join(run.ModeNames(), ","), base, new)
	}
	p := ScalingPoint{Config: config, Host: run.Host.Label(), Partial: run.Partial,
		P: stats.DeltaOf(bm.Sample(), nm.Sample()).P, BaseMeans: map[string]float64{}, NewMeans: map[string]float64{}}
	var err error
	if p.TrimMean10, err = stats.RatioOfContext(ctx, bm.Pauses, nm.Pauses, stats.TrimMean10); err != nil {
		return p, err
	}
	if p.Median, err = stats.RatioOfContext(ctx, bm.Pauses, nm.Pauses, stats.Median); err != nil {
		return p, err
	}
	for _, c := range counters { // a counter a run did not count stays absent: n/a, not 0
		if v, ok := bm.CounterMeans[c.Key]; ok {
			p.BaseMeans[c.Key] = v
		}
		if v, ok := nm.CounterMeans[c.Key]; ok {
			p.NewMeans[c.Key] = v
		}
	}
	return p, nil
}

// Mode returns the run's mode called name, or nil if it has none.
func (r Run) Mode(name string) *Mode {
	for i := range r.Modes {
		if r.Modes[i].Name == name {
			return &r.Modes[i]
		}
	}
	return nil
}

// HostKey is the pseudo configuration key of a point's host, one of Keys
// when the points come from several machines.
const HostKey = "host"

// Value is the point's value of configuration key, or its host for
// HostKey.
func (p ScalingPoint) Value(key string) string {
	if key == HostKey {
		return p.Host
	}
	return p.Config.Value(key)
}

// varyingKeys lists the configuration keys (and the host) whose values
// differ between points, sorted, with "workers" last: it is the x axis.
func varyingKeys(points []ScalingPoint) []string {
	values := map[string]map[string]bool{}
	add := func(k, v string) {
		if values[k] == nil {
			values[k] = map[string]bool{}
		}
		values[k][v] = true
	}
	for _, p := range points {
		for _, kv := range p.Config {
			add(kv.Key, kv.Value)
		}
		add(HostKey, p.Host)
	}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if len(values[k]) > 1 || missingSomewhere(points, k) {
			keys = append(keys, k)
		}
	}
	if !configOnTwoHosts(points) {
		// A grid sharded over machines: each point on one of them. The
		// host then names no series: the points make one grid.
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == HostKey })
	}
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(b2i(a == ScalingX), b2i(b == ScalingX)) })
	return keys
}

// configOnTwoHosts reports whether some configuration was measured on
// more than one host, which makes the host a key of the table.
func configOnTwoHosts(points []ScalingPoint) bool {
	host := map[string]string{}
	for _, p := range points {
		id := p.Config.Sorted().String()
		if h, ok := host[id]; ok && h != p.Host {
			return true
		}
		host[id] = p.Host
	}
	return false
}

// Hosts lists the points' hosts, sorted.
func (s *Scaling) Hosts() []string {
	seen := map[string]bool{}
	for _, p := range s.Points {
		seen[p.Host] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// ScalingX is the configuration key a scaling plot puts on its x axis.
const ScalingX = "workers"

func missingSomewhere(points []ScalingPoint, k string) bool {
	if k == HostKey {
		return false
	}
	for _, p := range points {
		if _, ok := p.Config.Get(k); !ok {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// OrderValues orders configuration values: numbers numerically, sizes
// and words as text.
func OrderValues(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}
