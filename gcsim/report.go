package gcsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
)

// reportTitle is what a comparison's samples are.
const reportTitle = "minor-collection pause"

// ReportOptions is what a report records of a run beyond its Result. The
// zero value records an unknown host and start, no more facts, and a run
// that finished.
type ReportOptions struct {
	// Host is the machine that ran the comparison.
	Host report.Host
	// Started is when the comparison began; the report keeps it in UTC,
	// to the second.
	Started time.Time
	// Facts are run-wide numbers to record beside Result.Facts (TraceFacts,
	// say); one of the same key replaces the Result's.
	Facts map[string]float64
	// Partial, if not empty, says why the run stopped before it had
	// measured all it was asked to, and how far it got.
	Partial string
}

// Report returns the report of res, the comparison e ran: one run on
// o.Host with each mode's pauses in µs and every counter of Counters that
// a record counted (a counter no record counted is absent, shown as n/a,
// not 0), the samples the host's collector overlapped marked disturbed,
// Result.Facts with o.Facts, the pause anatomy (AnatomyParts and
// AnatomyCounters), e's settings as ReportConfig shows them, and e's typed
// settings, which ReadExperiment reads back. Elapsed is rounded to the
// millisecond. It returns an error wrapping report.ErrInvalidInput if res
// does not hold e's modes in e's order, each measured at least once.
func (e Experiment) Report(res *Result, o ReportOptions) (*report.Report, error) {
	inputs := make([]report.ModeInput, len(res.Modes))
	modes := make([]Mode, len(res.Modes))
	for i, mr := range res.Modes {
		inputs[i], modes[i] = modeInput(mr), mr.Mode
	}
	if !slices.Equal(modes, e.Modes) {
		return nil, fmt.Errorf("%w: the result has modes %v, the experiment %v", report.ErrInvalidInput, modes, e.Modes)
	}
	run, err := report.NewRun(o.Host, inputs)
	if err != nil {
		return nil, err
	}
	run.Partial = o.Partial
	run.Started = o.Started.UTC().Truncate(time.Second)
	run.Elapsed = report.Duration(res.Elapsed.Round(time.Millisecond))
	run.Facts = res.Facts(e.Warmup)
	maps.Copy(run.Facts, o.Facts)
	r := report.NewReport(reportTitle, e.ReportConfig(), run)
	if r.Settings, err = json.Marshal(e); err != nil {
		return nil, fmt.Errorf("gcsim: saving the experiment's settings: %w", err)
	}
	r.Anatomy = reportAnatomy()
	return r, nil
}

// reportAnatomy is the anatomy of a pause (its parts and the counters
// that explain them) as a report draws it.
func reportAnatomy() *report.Anatomy {
	return &report.Anatomy{Parts: reportRows(AnatomyParts()), Counters: reportRows(AnatomyCounters())}
}

// ReportScalingCounters are ScalingCounters as report.NewScaling takes
// them: each counter's key in a report's counter means, and its label.
func ReportScalingCounters() []report.ScalingCounter { return reportRows(ScalingCounters()) }

// reportRows names counters as a report does: by key, with their labels.
func reportRows(cs []Counter) []report.AnatomyRow {
	out := make([]report.AnatomyRow, len(cs))
	for i, c := range cs {
		out[i] = report.AnatomyRow{Key: c.String(), Label: c.Label()}
	}
	return out
}

// modeInput turns one mode's records into pause samples (µs), the
// counters per collection, and the indices of samples the host's Go
// collector overlapped.
func modeInput(mr ModeResult) report.ModeInput {
	counters := Counters()
	in := report.ModeInput{Name: mr.Mode.String(), Pauses: make([]float64, len(mr.Records)),
		Counters: make(map[string][]float64, len(counters))}
	for i := range mr.Records {
		r := &mr.Records[i]
		in.Pauses[i] = float64(r.Pause) / float64(time.Microsecond)
		if r.HostGCs > 0 {
			in.Disturbed = append(in.Disturbed, i)
		}
		for _, c := range counters {
			if v, ok := c.Value(r); ok {
				in.Counters[c.String()] = append(in.Counters[c.String()], v)
			}
		}
	}
	return in
}

// ErrNoSettings is ReadExperiment's error for a report without typed
// settings: one of report.SchemaV1, written before reports saved them,
// which only its shown configuration describes.
var ErrNoSettings = errors.New("gcsim: the report has no typed settings")

// ReadExperiment reads the Experiment whose report r is, from its typed
// settings (report.Report.Settings, as Report writes them), strictly: it
// decodes them onto DefaultExperiment, so a setting r lacks keeps its
// default; an unknown key, a value its setting cannot hold, or an
// experiment that Experiment.Validate refuses is a *setting.Error naming
// the key ("mutator.major_fill", "gomaxprocs"). A report without typed
// settings, or whose settings are JSON null, is an error wrapping
// ErrNoSettings: null is no settings, never the default experiment.
func ReadExperiment(r *report.Report) (Experiment, error) {
	if len(r.Settings) == 0 || string(bytes.TrimSpace(r.Settings)) == "null" {
		return Experiment{}, fmt.Errorf("%w (a report of schema %s)", ErrNoSettings, r.Schema)
	}
	e := DefaultExperiment()
	if err := json.Unmarshal(r.Settings, &e); err != nil {
		return Experiment{}, err
	}
	if err := e.Validate(); err != nil {
		return Experiment{}, err
	}
	return e, nil
}

// A Difference is the first setting in which the experiment a report was
// made of differs from another: its key and both values as text.
type Difference struct {
	Key                string
	Report, Experiment string // "(unset)" where that side lacks the key
}

// DiffReport returns the first setting in which the experiment report r
// was made of differs from e, or nil if r is a report of e. It compares
// typed settings (ReadExperiment's, in field order; Config.Trace is none),
// or, for a report without them (ErrNoSettings), the configuration it
// shows (ReportConfig's, keys in alphabetical order). Settings it cannot
// read are ReadExperiment's error.
func (e Experiment) DiffReport(r *report.Report) (*Difference, error) {
	saved, err := ReadExperiment(r)
	if errors.Is(err, ErrNoSettings) {
		mine := e.ReportConfig()
		k, differ := report.FirstDifference(r.Config, mine)
		if !differ {
			return nil, nil
		}
		return &Difference{Key: k, Report: shownOrUnset(r.Config, k), Experiment: shownOrUnset(mine, k)}, nil
	}
	if err != nil {
		return nil, err
	}
	if k, theirs, mine, differ := saved.diff(e); differ {
		return &Difference{Key: k, Report: theirs, Experiment: mine}, nil
	}
	return nil, nil
}

func shownOrUnset(c report.Config, k string) string {
	if v, ok := c.Get(k); ok {
		return v
	}
	return "(unset)"
}
