package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/gcbench/gcbench/analysis/stats"
)

// Schema identifies the JSON format written by WriteJSON: version 2, whose
// reports carry their typed Settings. ReadJSON accepts it and SchemaV1.
const Schema = "gcbench/report/v2"

// SchemaV1 is the format before Settings (named after the package that
// wrote it, analysis, before it was split into stats, report and render).
// ReadJSON still reads it; such a report has no Settings, so what needs
// them (a rerun, a typed reading) asks for the report to be regenerated.
const SchemaV1 = "gcbench/analysis/v1"

// Errors returned by this package; test with errors.Is.
var (
	ErrInvalidInput   = errors.New("report: invalid input")
	ErrSchema         = errors.New("report: not a gcbench report")
	ErrConfigMismatch = errors.New("report: reports have different configurations")
	ErrDuplicateRun   = errors.New("report: the same run twice")
)

// ConfigModes is the Config key that, when present, lists every run's mode
// names, comma-separated, in column order; ReadJSON and Merge reject a
// report whose runs do not have exactly those modes.
const ConfigModes = "modes"

// Unit is the unit of every pause and pause statistic in a Report.
const Unit = "µs"

// MaxPause bounds a pause sample (µs, about 31 years) so that every
// statistic of a sample stays finite.
const MaxPause = 1e15

// A Report is everything gcbench knows about one experiment: what was run
// (Config) and, for each machine it ran on, the measurements (Runs). A
// fresh run has one Run; Merge combines runs of one configuration from
// several machines. The JSON encoding of a Report is self-describing and
// ReadJSON reads it back.
type Report struct {
	Schema string `json:"schema"`
	// Title says what the samples are ("minor-collection pause").
	Title string `json:"title"`
	// Unit is the unit of pauses and of every summary statistic: always
	// Unit ("µs"); improvements are percentages, p-values probabilities.
	Unit string `json:"unit"`
	// Config holds the experiment's settings as key/value pairs, in the
	// order tables show them; reports group by them and merge only when
	// their Configs are equal (Config.Equal: the same pairs, in any order).
	Config Config `json:"config"`
	// Settings holds the same settings typed, as their owner encodes them
	// (gcsim.Experiment for gcbench run), for a program to read back
	// without parsing Config's text; this package only carries them. It is
	// empty in a SchemaV1 report.
	Settings json.RawMessage `json:"settings,omitempty"`
	Runs     []Run           `json:"runs"`
	// Anatomy, if set, names the counters that split each pause into
	// parts; renderers then add the pause anatomy (see AnatomyTable).
	Anatomy *Anatomy `json:"anatomy,omitempty"`
	// Source names where the report was read from (a file), for the
	// errors of Merge and NewScalingContext; it is not saved. Without
	// one, those name a report by its place in their arguments.
	Source string `json:"-"`
}

// name is how an error of a function given reports names the one at index
// i (from 0): its Source, or "report i+1".
func (r *Report) name(i int) string {
	if r.Source != "" {
		return r.Source
	}
	return fmt.Sprintf("report %d", i+1)
}

// MaxCores bounds Host.Cores and Host.GOMAXPROCS in a report read back: far
// more than any machine has, small enough that a program sizing something
// by cores (a model of the host) cannot be made to exhaust memory by an
// edited file.
const MaxCores = 1 << 16

// A Host describes the machine a Run measured.
type Host struct {
	Hostname   string `json:"hostname,omitempty"`
	CPUModel   string `json:"cpu_model"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// Label names the host in a column header: its hostname, or its CPU model
// when the hostname is unknown.
func (h Host) Label() string {
	if h.Hostname != "" {
		return h.Hostname
	}
	if h.CPUModel != "" {
		return h.CPUModel
	}
	return "unknown host"
}

// A Run is one execution of the experiment on one host.
type Run struct {
	Host Host `json:"host"`
	// Started is when the run began (zero if unknown); Elapsed its wall time.
	Started time.Time `json:"started,omitzero"`
	Elapsed Duration  `json:"elapsed"`
	// Partial, if not empty, says why the run stopped before it had
	// measured all it was asked to (a signal, say) and how far it got; its
	// statistics cover only what it measured.
	Partial string `json:"partial,omitempty"`
	// Facts are run-wide numbers that belong to no mode (for example the
	// count of untimed major collections).
	Facts map[string]float64 `json:"facts,omitempty"`
	Modes []Mode             `json:"modes"`
	// Comparisons set the last mode against each earlier one, in mode order
	// (the seed table's Improvement columns). NewRun and ReadJSON derive
	// them from the samples.
	Comparisons []stats.Delta `json:"comparisons"`
}

// A Mode is one configuration's sample within a run.
type Mode struct {
	Name string `json:"name"`
	// Pauses are the measured pauses in microseconds, in collection order.
	Pauses []float64 `json:"pauses_us"`
	// Summary is derived from Pauses (by NewRun and ReadJSON).
	Summary stats.Summary `json:"summary"`
	// CounterMeans maps a counter's name to its mean per collection.
	CounterMeans map[string]float64 `json:"counter_means,omitempty"`
	// CounterErrors maps a counter's name to the standard error of its
	// mean (stats.StandardError), the noise the anatomy weighs a part's
	// difference against; reports written before it was kept have none.
	CounterErrors map[string]float64 `json:"counter_errors,omitempty"`
	// Disturbed lists the indices into Pauses of samples during which the
	// host's own (Go) garbage collector ran; they are kept in the
	// statistics and flagged here so a reader can judge or drop them.
	Disturbed      []int `json:"disturbed,omitempty"`
	DisturbedCount int   `json:"disturbed_count"`
}

// A ModeInput is the raw material of a Mode.
type ModeInput struct {
	Name   string
	Pauses []float64 // microseconds, one per collection; at least one, each in [0, MaxPause]
	// Counters maps a counter's name to its value per collection; a Mode
	// keeps only the means.
	Counters  map[string][]float64
	Disturbed []int // indices into Pauses
}

// NewRun builds a Run measured on host from the modes' raw samples,
// computing summaries, counter means and the comparisons of the last mode
// against each earlier one. The inputs' slices are copied, not retained.
// It returns an error wrapping ErrInvalidInput for no modes, duplicate or
// empty names, empty or non-finite samples and out-of-range indices.
func NewRun(host Host, modes []ModeInput) (Run, error) {
	if len(modes) == 0 {
		return Run{}, fmt.Errorf("%w: no modes", ErrInvalidInput)
	}
	run := Run{Host: host}
	for _, in := range modes {
		means := make(map[string]float64, len(in.Counters))
		errs := make(map[string]float64, len(in.Counters))
		for name, vs := range in.Counters {
			if len(vs) > 0 {
				means[name] = stat.Mean(vs, nil)
				errs[name] = stats.StandardError(vs)
			}
		}
		m := Mode{Name: in.Name, Pauses: slices.Clone(in.Pauses), CounterMeans: means, CounterErrors: errs,
			Disturbed: slices.Clone(in.Disturbed)}
		run.Modes = append(run.Modes, m)
	}
	if err := run.derive(); err != nil {
		return Run{}, err
	}
	return run, nil
}

// derive validates the run's samples and recomputes everything that
// follows from them: summaries, disturbed counts and comparisons.
func (r *Run) derive() error {
	if len(r.Modes) == 0 {
		return fmt.Errorf("%w: run on %s has no modes", ErrInvalidInput, r.Host.Label())
	}
	if r.Host.Cores < 0 || r.Host.Cores > MaxCores || r.Host.GOMAXPROCS < 0 || r.Host.GOMAXPROCS > MaxCores {
		return fmt.Errorf("%w: run on %s: %d cores, GOMAXPROCS %d (want 0 to %d)", ErrInvalidInput, r.Host.Label(), r.Host.Cores, r.Host.GOMAXPROCS, MaxCores)
	}
	for k, v := range r.Facts {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: fact %q is not finite", ErrInvalidInput, k)
		}
	}
	seen := make(map[string]bool)
	for i := range r.Modes {
		m := &r.Modes[i]
		if err := m.validate(); err != nil {
			return err
		}
		if seen[m.Name] {
			return fmt.Errorf("%w: mode %q appears twice", ErrInvalidInput, m.Name)
		}
		seen[m.Name] = true
		m.Summary = stats.Summarize(m.Pauses)
		m.DisturbedCount = len(m.Disturbed)
	}
	last := r.Modes[len(r.Modes)-1]
	r.Comparisons = nil
	for _, base := range r.Modes[:len(r.Modes)-1] {
		r.Comparisons = append(r.Comparisons, stats.DeltaOf(base.Sample(), last.Sample()))
	}
	return nil
}

func (m *Mode) validate() error {
	if m.Name == "" {
		return fmt.Errorf("%w: a mode has no name", ErrInvalidInput)
	}
	if len(m.Pauses) == 0 {
		return fmt.Errorf("%w: mode %q has no samples", ErrInvalidInput, m.Name)
	}
	for _, v := range m.Pauses {
		if !(v >= 0 && v <= MaxPause) { // also catches NaN
			return fmt.Errorf("%w: mode %q has a pause of %v µs, outside [0, %g]", ErrInvalidInput, m.Name, v, MaxPause)
		}
	}
	for _, v := range m.CounterMeans {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat64/4 {
			return fmt.Errorf("%w: mode %q has a non-finite counter", ErrInvalidInput, m.Name)
		}
	}
	for _, v := range m.CounterErrors {
		if !(v >= 0 && v <= math.MaxFloat64/4) { // also catches NaN
			return fmt.Errorf("%w: mode %q has a counter error of %v, not a finite non-negative number", ErrInvalidInput, m.Name, v)
		}
	}
	for _, i := range m.Disturbed {
		if i < 0 || i >= len(m.Pauses) {
			return fmt.Errorf("%w: mode %q: disturbed index %d out of range", ErrInvalidInput, m.Name, i)
		}
	}
	return nil
}

// Sample is m's pauses and their summary, named after m, for stats.DeltaOf.
func (m Mode) Sample() stats.Sample {
	return stats.Sample{Name: m.Name, Values: m.Pauses, Summary: m.Summary}
}

// ModeNames returns the run's mode names in order.
func (r Run) ModeNames() []string {
	names := make([]string, len(r.Modes))
	for i, m := range r.Modes {
		names[i] = m.Name
	}
	return names
}

// NewReport returns a Report of one run; config is copied.
func NewReport(title string, config Config, run Run) *Report {
	return &Report{Schema: Schema, Title: title, Unit: Unit, Config: slices.Clone(config), Runs: []Run{run}}
}

// Merge combines reports of the same configuration (equal Config, equal
// Title) into one whose Runs are theirs in argument order, so renderers
// show one column group per host, and whose Config is the first report's,
// in its order. It returns an error wrapping
// ErrConfigMismatch naming the first difference otherwise (an anatomy that
// differs is one), ErrDuplicateRun
// if a run appears twice (the same file given twice, or a copy), and
// ErrInvalidInput if a run's modes are not those ConfigModes lists.
func Merge(reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: nothing to merge", ErrInvalidInput)
	}
	first := reports[0]
	out := &Report{Schema: Schema, Title: first.Title, Unit: Unit, Config: slices.Clone(first.Config), Settings: first.Settings,
		Anatomy: first.Anatomy}
	for i, r := range reports {
		if r.Title != first.Title {
			return nil, fmt.Errorf("%w: %s measures %q, %s %q", ErrConfigMismatch, r.name(i), r.Title, first.name(0), first.Title)
		}
		if k, ok := FirstDifference(first.Config, r.Config); ok {
			return nil, fmt.Errorf("%w: %s has %s=%q, %s %s=%q",
				ErrConfigMismatch, r.name(i), k, r.Config.Value(k), first.name(0), k, first.Config.Value(k))
		}
		if !sameSettings(first.Settings, r.Settings) {
			return nil, fmt.Errorf("%w: %s has other settings than %s (their typed settings differ)",
				ErrConfigMismatch, r.name(i), first.name(0))
		}
		if !reflect.DeepEqual(first.Anatomy, r.Anatomy) { // one split of the pause for every host's columns
			return nil, fmt.Errorf("%w: %s splits its pauses into other parts than %s (its anatomy differs)",
				ErrConfigMismatch, r.name(i), first.name(0))
		}
		for _, run := range r.Runs {
			if j := slices.IndexFunc(out.Runs, run.sameAs); j >= 0 {
				return nil, fmt.Errorf("%w: %s repeats run %d of the merge (same host, start and samples)",
					ErrDuplicateRun, r.name(i), j+1)
			}
			out.Runs = append(out.Runs, run)
		}
	}
	if !slices.ContainsFunc(reports, func(r *Report) bool { return r.Schema != SchemaV1 }) {
		out.Schema = SchemaV1 // version 1 reports merge into one, which writes as they were written
	}
	if err := out.checkModes(); err != nil {
		return nil, err
	}
	return out, nil
}

// sameSettings reports whether two reports' Settings agree: equal JSON,
// or one of them a SchemaV1 report's, which has none.
func sameSettings(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// sameAs reports whether o is r again: a file merged twice, or a copy.
func (r Run) sameAs(o Run) bool {
	if r.Host != o.Host || !r.Started.Equal(o.Started) || r.Elapsed != o.Elapsed || len(r.Modes) != len(o.Modes) {
		return false
	}
	for i := range r.Modes {
		if r.Modes[i].Name != o.Modes[i].Name || !slices.Equal(r.Modes[i].Pauses, o.Modes[i].Pauses) {
			return false
		}
	}
	return true
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report: writing JSON: %w", err)
	}
	return nil
}

// ReadJSON reads a Report written by WriteJSON. It trusts only the samples:
// summaries and comparisons are recomputed from them, so an edited or
// truncated file cannot produce inconsistent tables. The input must be one
// JSON document and nothing more, with no key a report does not have (at
// the top level or in its parts). Errors wrap ErrSchema (not a report of
// this version, or trailing data) or ErrInvalidInput (bad samples, modes
// other than ConfigModes lists).
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields() // a key no version wrote is a foreign document or an edit gone wrong
	if err := dec.Decode(&r); err != nil {
		if r.Schema != "" && !knownSchema(r.Schema) { // an unknown key of a newer schema: say which schema
			return nil, fmt.Errorf("%w: schema %q, want %q (or %q)", ErrSchema, r.Schema, Schema, SchemaV1)
		}
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: more data after the report's JSON document (at byte %d)", ErrSchema, dec.InputOffset())
	}
	if r.Schema == ScalingSchema {
		return nil, fmt.Errorf("%w: a scaling table (report DIR --format json), which is rebuilt from its points: give report their directory", ErrSchema)
	}
	if !knownSchema(r.Schema) {
		return nil, fmt.Errorf("%w: schema %q, want %q (or %q)", ErrSchema, r.Schema, Schema, SchemaV1)
	}
	if r.Unit != Unit {
		return nil, fmt.Errorf("%w: unit %q, want %q", ErrSchema, r.Unit, Unit)
	}
	if len(r.Runs) == 0 {
		return nil, fmt.Errorf("%w: no runs", ErrInvalidInput)
	}
	for i := range r.Runs {
		if err := r.Runs[i].derive(); err != nil {
			return nil, err
		}
	}
	if err := r.checkModes(); err != nil {
		return nil, err
	}
	if err := r.checkAnatomy(); err != nil {
		return nil, err
	}
	return &r, nil
}

// knownSchema reports whether ReadJSON reads reports of schema s.
func knownSchema(s string) bool { return s == Schema || s == SchemaV1 }

// checkAnatomy bounds the means of the anatomy's parts as pauses are
// bounded, so that the parts' sum, which the anatomy table prints and its
// plot stacks, stays finite: a plot of parts that added up to +Inf never
// finished drawing.
func (r *Report) checkAnatomy() error {
	if r.Anatomy == nil {
		return nil
	}
	for i, run := range r.Runs {
		for _, m := range run.Modes {
			for _, part := range r.Anatomy.Parts {
				if v := m.CounterMeans[part.Key]; math.Abs(v) > MaxPause {
					return fmt.Errorf("%w: run %d, mode %q: anatomy part %q has a mean of %g µs, beyond ±%g",
						ErrInvalidInput, i+1, m.Name, part.Key, v, MaxPause)
				}
			}
		}
	}
	return nil
}

// checkModes enforces ConfigModes.
func (r *Report) checkModes() error {
	want, ok := r.Config.Get(ConfigModes)
	if !ok {
		return nil
	}
	for i, run := range r.Runs {
		if got := strings.Join(run.ModeNames(), ","); got != want {
			return fmt.Errorf("%w: run %d has modes %q, but the configuration says %s=%q",
				ErrInvalidInput, i+1, got, ConfigModes, want)
		}
	}
	return nil
}

// A Duration is a time.Duration that encodes in JSON as a string such as
// "3m12.5s" (time.Duration's String form).
type Duration time.Duration

// String returns d in time.Duration's String form.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
