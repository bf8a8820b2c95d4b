package analysis

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
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

// A ScalingCounter is a counter the scaling table shows for both modes.
type ScalingCounter struct {
	Key   string `json:"key"`   // its name in Mode.CounterMeans
	Label string `json:"label"` // its column heading
}

// A ScalingPoint is one row of a Scaling.
type ScalingPoint struct {
	Config     map[string]string  `json:"config"`
	Host       string             `json:"host"`
	Partial    string             `json:"partial,omitempty"`
	TrimMean10 Ratio              `json:"trimmean10_ratio"`
	Median     Ratio              `json:"median_ratio"`
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
			id := p.Host + "\x00" + strings.Join(configPairsOf(p.Config), " ")
			if seen[id] {
				return nil, fmt.Errorf("%w: %s repeats a point (%s on %s)", ErrDuplicateRun, r.name(i),
					strings.Join(configPairsOf(p.Config), " "), p.Host)
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
			if c := compareValues(configValue(a, k), configValue(b, k)); c != 0 {
				return c
			}
		}
		return 0
	})
	return s, nil
}

func scalingPoint(ctx context.Context, config map[string]string, run Run, base, new string, counters []ScalingCounter) (ScalingPoint, error) {
	bm, nm := run.Mode(base), run.Mode(new)
	if bm == nil || nm == nil {
		return ScalingPoint{}, fmt.Errorf("%w: the run on %s has modes %s, not both %s and %s",
			ErrInvalidInput, run.Host.Label(), strings.Join(run.ModeNames(), ","), base, new)
	}
	p := ScalingPoint{Config: config, Host: run.Host.Label(), Partial: run.Partial,
		P: Compare(*bm, *nm).P, BaseMeans: map[string]float64{}, NewMeans: map[string]float64{}}
	var err error
	if p.TrimMean10, err = RatioOfContext(ctx, bm.Pauses, nm.Pauses, TrimMean10); err != nil {
		return p, err
	}
	if p.Median, err = RatioOfContext(ctx, bm.Pauses, nm.Pauses, Median); err != nil {
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

// hostKey is the pseudo configuration key of a point's host, a column
// when points come from several machines.
const hostKey = "host"

func configValue(p ScalingPoint, key string) string {
	if key == hostKey {
		return p.Host
	}
	return p.Config[key]
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
		for k, v := range p.Config {
			add(k, v)
		}
		add(hostKey, p.Host)
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
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == hostKey })
	}
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(b2i(a == ScalingX), b2i(b == ScalingX)) })
	return keys
}

// configOnTwoHosts reports whether some configuration was measured on
// more than one host, which makes the host a key of the table.
func configOnTwoHosts(points []ScalingPoint) bool {
	host := map[string]string{}
	for _, p := range points {
		id := strings.Join(configPairsOf(p.Config), " ")
		if h, ok := host[id]; ok && h != p.Host {
			return true
		}
		host[id] = p.Host
	}
	return false
}

// hosts lists the points' hosts, sorted.
func (s *Scaling) hosts() []string {
	seen := map[string]bool{}
	for _, p := range s.Points {
		seen[p.Host] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// ScalingX is the configuration key a scaling plot puts on its x axis.
const ScalingX = "workers"

func missingSomewhere(points []ScalingPoint, k string) bool {
	if k == hostKey {
		return false
	}
	for _, p := range points {
		if _, ok := p.Config[k]; !ok {
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

// compareValues orders configuration values: numbers numerically, sizes
// and words as text.
func compareValues(a, b string) int {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

func configPairsOf(config map[string]string) []string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(config)) {
		pairs = append(pairs, k+"="+config[k])
	}
	return pairs
}

// Table is the scaling table: the varying keys, the two ratios with their
// intervals, the p-value, then each counter for Base and New.
func (s *Scaling) Table() *Table {
	t := &Table{Title: fmt.Sprintf("gcbench: scaling of %s against %s (%d points)", s.New, s.Base, len(s.Points))}
	if fixed := s.fixedConfig(); len(fixed) > 0 {
		t.Facts = append(t.Facts, Fact{Key: "config", Value: strings.Join(fixed, " "), Verbatim: true})
	}
	head := append([]string{}, s.Keys...)
	ratio := s.New + "/" + s.Base
	head = append(head, "TrimMean 10% "+ratio, "95% CI", "median "+ratio, "95% CI", "p-value")
	for _, c := range s.Counters {
		head = append(head, c.Label+" "+s.Base, c.Label+" "+s.New)
	}
	t.Header = [][]string{head}
	for _, p := range s.Points {
		row := make([]string, 0, len(head))
		for _, k := range s.Keys {
			row = append(row, configValue(p, k))
		}
		row = append(row, fmtRatio(p.TrimMean10.Value), fmtCI(p.TrimMean10.CI), fmtRatio(p.Median.Value), fmtCI(p.Median.CI),
			humanStyle.p(p.P))
		for _, c := range s.Counters {
			row = append(row, meanCell(p.BaseMeans, c.Key, "n/a", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }),
				meanCell(p.NewMeans, c.Key, "n/a", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Ratio = %s's statistic / %s's: below 1 means %s's pauses are shorter. "+
		"CI: percentile bootstrap, %d resamples. p-value: two-sided Mann–Whitney U. Counters: means per collection.",
		s.New, s.Base, s.New, bootstrapResamples))
	for _, p := range s.Points {
		if p.Partial != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("PARTIAL: %s on %s: %s", strings.Join(configPairsOf(p.Config), " "), p.Host, p.Partial))
		}
	}
	if hosts := s.hosts(); len(hosts) > 1 && !slices.Contains(s.Keys, hostKey) {
		t.Notes = append(t.Notes, fmt.Sprintf("The points were measured on %d machines, each point on one: %s.", len(hosts), strings.Join(hosts, ", ")))
	}
	return t
}

// fixedConfig lists the key=value pairs every point shares.
func (s *Scaling) fixedConfig() []string {
	var out []string
	for _, pair := range configPairsOf(s.Points[0].Config) {
		k, _, _ := strings.Cut(pair, "=")
		if !slices.Contains(s.Keys, k) {
			out = append(out, pair)
		}
	}
	return out
}

func fmtRatio(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
func fmtCI(ci Interval) string  { return "[" + fmtRatio(ci.Lo) + ", " + fmtRatio(ci.Hi) + "]" }

// Write renders the scaling table in f; JSON is the Scaling itself, and
// CSV has a machine's cells: each interval as two columns, numbers unit-
// free and not rounded for reading (ratios and p-values to 4 significant
// digits, counters to 3 decimals).
func (s *Scaling) Write(w io.Writer, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	case CSV:
		return s.csvTable().Write(w, f)
	}
	return s.Table().Write(w, f)
}

// csvTable is the scaling table for CSV.
func (s *Scaling) csvTable() *Table {
	head := slices.Clone(s.Keys)
	ratio := s.New + "/" + s.Base
	head = append(head, "trimmean10 "+ratio, "ci lo", "ci hi", "median "+ratio, "ci lo", "ci hi", "p", "partial")
	for _, c := range s.Counters {
		head = append(head, c.Label+" "+s.Base, c.Label+" "+s.New)
	}
	t := &Table{Header: [][]string{head}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	for _, p := range s.Points {
		row := make([]string, 0, len(head))
		for _, k := range s.Keys {
			row = append(row, configValue(p, k))
		}
		row = append(row, g(p.TrimMean10.Value), g(p.TrimMean10.CI.Lo), g(p.TrimMean10.CI.Hi),
			g(p.Median.Value), g(p.Median.CI.Lo), g(p.Median.CI.Hi), g(p.P), p.Partial)
		for _, c := range s.Counters {
			row = append(row, meanCell(p.BaseMeans, c.Key, "", machineStyle.value), meanCell(p.NewMeans, c.Key, "", machineStyle.value))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// meanCell is means[key] formatted, or absent where the run did not count
// that counter (the Native backend's futex calls).
func meanCell(means map[string]float64, key, absent string, format func(float64) string) string {
	if v, ok := means[key]; ok {
		return format(v)
	}
	return absent
}
