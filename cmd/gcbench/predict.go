package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gcbench/gcbench/analysis"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
)

const predictUsage = `usage: gcbench predict --dir POINTS [--dir POINTS ...] [flags]

Predicts perjob, batch and startbatch pauses on more cores than this host
has, with the model of package pausemodel: a simulation of the pool
protocol on C cores, calibrated only from microbenchmarks of this host
(futex wake-to-run latency, the cost of a wake call and of a futile
wake-up, the queue lock), each cost the median of --calibrations runs, and
from serial collections (the cost of each job). Every use first checks the
model against the sweep points in each --dir ('gcbench sweep' output,
perjob and batch or startbatch on the threads backend; a sweep run under
'taskset -c 0' checks it on one core) and prints the validation tables:
the predicted perjob − batch difference and ratio beside the measured
ones, point by point, and the same for startbatch's points. Give the
same grid swept several times (one --dir each) and the check also prints
the measurement floor: how far those sweeps disagree with each other,
the error even an exact model would show against them. Then it predicts
--cores at the seed's shape (workers = cores), beside SGen's published
8-core means.

flags:
`

// sgen8Core are the means SGen's change reported on 8 cores (µs): serial,
// perjob and batch (mono/mono#20634).
var sgen8Core = [3]float64{2585, 2206, 1629}

type predictOptions struct {
	dirs         []string
	calibrations int
	cores        []int
	major, los   int64
	format       analysis.Format
	calibrateGCs int
}

func cmdPredict(ctx context.Context, e *env, args []string) error {
	o := predictOptions{}
	fs := newFlagSet("predict")
	fs.SortFlags = false
	avail := availableMemory()
	fs.StringArrayVar(&o.dirs, "dir", nil, "a directory of sweep points to validate the model against (required; repeat it for several sweeps, and for repeated sweeps of one grid, which give the measurement floor)")
	fs.Var(newIntValue(&o.calibrations, 3, 1, 100), "calibrations", "calibration runs; each cost is their median")
	fs.Var(newListValue(&o.cores, []int{8, 16, 64}, boundedInt(1, workerpool.MaxWorkers), "core counts"), "cores",
		"core counts to predict, with workers = cores")
	fs.Var(newSizeValue(&o.major, 2560<<20, avail), "major-heap", "major heap `size` of the predictions (the seed's)")
	fs.Var(newSizeValue(&o.los, 1<<30, avail), "los", "large-object space `size` of the predictions (the seed's)")
	fs.Var(newIntValue(&o.calibrateGCs, 30, 1, 10000), "calibration-gcs", "serial collections that measure each heap's job costs")
	fs.Var(formatValue{&o.format}, "format", "output format: text, markdown or csv (the tables' rows only: "+
		"the calibration lines go to standard error, and the notes, the check's verdict among them, are in text and markdown)")
	if done, err := parseFlags(fs, args, e.stdout, predictUsage); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if len(o.dirs) == 0 {
		return usagef("--dir is required: the sweep points that check the model")
	}
	if o.format == analysis.JSON {
		return usagef("--format json: predict has no JSON document; want text, markdown or csv")
	}
	if err := o.checkPredictionHeap(avail); err != nil {
		return err
	}
	names, _, err := reportInputs(o.dirs)
	if err != nil {
		return err
	}
	// A sweep given twice would read as a measurement floor of 0.
	if err := checkPaths(nil, pathsOf("--dir", o.dirs)); err != nil {
		return err
	}
	if err := checkPaths(stdoutPath(), pathsOf("point", names)); err != nil {
		return err
	}
	var reports []*analysis.Report
	for _, n := range names {
		r, err := readReport(ctx, n)
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	if err := oneCollectorKind(reports, names); err != nil {
		return err
	}
	return predict(ctx, e, o, reports)
}

// checkPredictionHeap refuses, before the calibration's seconds, a heap
// for the predictions that gcsim would refuse or this machine cannot hold.
func (o predictOptions) checkPredictionHeap(avail int64) error {
	cfg := o.predictionConfig()
	if err := fitsMemory(cfg, avail); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		var ce *gcsim.ConfigError
		if errors.As(err, &ce) && (ce.Field == "MajorHeap" || ce.Field == "LOS") {
			return usagef("%s %s: want %s", configFlags[ce.Field], ce.Value, ce.Want)
		}
		return usagef("--major-heap %s, --los %s: %v", formatSize(o.major), formatSize(o.los), err)
	}
	return nil
}

// predictionConfig is the simulation whose jobs the predictions use: the
// defaults at --major-heap and --los.
func (o predictOptions) predictionConfig() gcsim.Config {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS = o.major, o.los
	return cfg
}

// oneCollectorKind refuses points made with and without --lock-collector
// together: one check would pool two measured systems.
func oneCollectorKind(reports []*analysis.Report, names []string) error {
	for i, r := range reports {
		if got, first := r.Config["collector"], reports[0].Config["collector"]; got != first {
			return usagef("--dir: %s was made with collector=%q, %s with %q: check points made with and without "+
				"--lock-collector apart", names[0], first, names[i], got)
		}
	}
	return nil
}

// validation is one sweep point checked: measured and predicted mean
// pauses (µs) of perjob and of a batched mode, Batched (batch or
// startbatch).
type validation struct {
	Config          map[string]string
	Host            string // the machine that measured it (analysis.Host.Label)
	Cores           int
	Batched         string
	MeasuredPerJob  float64
	MeasuredBatch   float64
	PredictedPerJob float64
	PredictedBatch  float64
	MeasuredFutile  float64
	PredictedFutile int
	// MeasuredParts and PredictedParts are the perjob − batched difference
	// (µs) of each of dispatchParts; a measured one is NaN where the point
	// has no anatomy.
	MeasuredParts, PredictedParts [len(dispatchParts)]float64
}

// dispatchParts are the parts of the pause the model simulates, as the
// anatomy names them; they add up to its dispatch.
var dispatchParts = [...]struct {
	key, label string
	of         func(pausemodel.Result) time.Duration
}{
	{"to_first_job_us", "to the first job", func(r pausemodel.Result) time.Duration { return r.ToFirstJob }},
	{"job_span_us", "job span", func(r pausemodel.Result) time.Duration { return r.JobSpan }},
	{"join_latency_us", "join", func(r pausemodel.Result) time.Duration { return r.JoinLatency }},
}

func (v validation) measuredDiff() float64  { return v.MeasuredPerJob - v.MeasuredBatch }
func (v validation) predictedDiff() float64 { return v.PredictedPerJob - v.PredictedBatch }

// batchedMode is a mode a point's perjob is checked against, with its
// protocol in the model.
type batchedMode struct {
	name     string
	protocol pausemodel.Protocol
}

// batchedModes are the batched modes the model covers: batch, whose check
// has the goal, first.
var batchedModes = []batchedMode{{"batch", pausemodel.Batch}, {"startbatch", pausemodel.StartBatch}}

func predict(ctx context.Context, e *env, o predictOptions, reports []*analysis.Report) error {
	if !slices.ContainsFunc(reports, checkable) { // before the calibration's seconds, not after
		return errNoCheckPoints(o.dirs)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 9))) // the herd benchmark's 8 workers + 1
	costs, runs, err := pausemodel.Calibrate(ctx, o.calibrations)
	if err != nil {
		return fmt.Errorf("calibrating: %w", err)
	}
	head := e.stdout
	if o.format == analysis.CSV {
		head = e.stderr // CSV holds the tables' rows alone
	}
	fmt.Fprintf(head, "gcbench predict: calibration on %s, median of %d runs: %v\n", describeHost(probeHost()), len(runs), costs)
	if len(runs) > 1 {
		fmt.Fprintf(head, "calibration runs' range: %s\n", pausemodel.Spread(runs))
	}
	works := map[string]pausemodel.Work{}
	work := func(cfg gcsim.Config) (pausemodel.Work, error) {
		key := fmt.Sprint(cfg.MajorHeap, cfg.LOS, cfg.Nursery, cfg.Seed)
		if w, ok := works[key]; ok {
			return w, nil
		}
		w, err := pausemodel.MeasureWork(ctx, cfg, o.calibrateGCs)
		works[key] = w
		return w, err
	}
	vals, err := validate(costs, reports, work)
	if err != nil {
		return err
	}
	sortValidations(vals)
	if len(vals) == 0 {
		return errNoCheckPoints(o.dirs)
	}
	// The model can turn on small differences between costs: what each
	// calibration run's own costs make of the check shows how far its
	// verdict rests on the medians.
	var byRun [][]validation
	if len(runs) > 1 {
		for _, r := range runs {
			v, err := validate(r, reports, work)
			if err != nil {
				return err
			}
			byRun = append(byRun, v)
		}
	}
	for _, b := range batchedModes {
		of := where(vals, func(v validation) bool { return v.Batched == b.name })
		if len(of) == 0 {
			continue
		}
		for _, t := range []*analysis.Table{validationTable(of, runErrors(byRun, b.name)), partsTable(of)} {
			if err := t.Write(e.stdout, o.format); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout)
		}
	}
	w, err := work(o.predictionConfig())
	if err != nil {
		return fmt.Errorf("measuring job costs at %s + %s: %w", formatSize(o.major), formatSize(o.los), err)
	}
	t, err := predictionTable(costs, runs, w, o)
	if err != nil {
		return err
	}
	return t.Write(e.stdout, o.format)
}

// runErrors is, for each calibration run's validations, the relative
// error of batched's check.
func runErrors(byRun [][]validation, batched string) []float64 {
	var errs []float64
	for _, vals := range byRun {
		_, rel := meanAbsError(where(vals, func(v validation) bool { return v.Batched == batched }))
		errs = append(errs, rel)
	}
	return errs
}

// where is the validations of vals that keep accepts, in a slice of
// their own: vals is left as it is.
func where(vals []validation, keep func(validation) bool) []validation {
	return slices.DeleteFunc(slices.Clone(vals), func(v validation) bool { return !keep(v) })
}

func validate(costs pausemodel.Costs, reports []*analysis.Report, work func(gcsim.Config) (pausemodel.Work, error)) ([]validation, error) {
	var out []validation
	for _, r := range reports {
		cfg, wake, ok := pointConfig(r.Config)
		if !ok {
			continue
		}
		w, err := work(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: measuring its heap's job costs: %w", r.Source, err)
		}
		for _, run := range r.Runs {
			per := run.Mode("perjob")
			if per == nil || run.Host.Cores < 1 || run.Host.Cores > workerpool.MaxWorkers { // cores unknown, or more than the model takes
				continue
			}
			perPause, perRes, err := pausemodel.Predict(costs, w, run.Host.Cores, cfg.Workers, pausemodel.PerJob, wake)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Source, err)
			}
			for _, b := range batchedModes {
				m := run.Mode(b.name)
				if m == nil {
					continue
				}
				pause, res, err := pausemodel.Predict(costs, w, run.Host.Cores, cfg.Workers, b.protocol, wake)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", r.Source, err)
				}
				v := validation{Config: r.Config, Host: run.Host.Label(), Cores: run.Host.Cores, Batched: b.name,
					MeasuredPerJob: per.Summary.Mean, MeasuredBatch: m.Summary.Mean, MeasuredFutile: per.CounterMeans["pool_futile_wakeups"],
					PredictedPerJob: micros(perPause), PredictedBatch: micros(pause), PredictedFutile: perRes.FutileWakeups}
				for i, part := range dispatchParts {
					v.MeasuredParts[i] = math.NaN() // a point from before the anatomy has none
					p, okP := per.CounterMeans[part.key]
					q, okQ := m.CounterMeans[part.key]
					if okP && okQ {
						v.MeasuredParts[i] = p - q
					}
					v.PredictedParts[i] = micros(part.of(perRes)) - micros(part.of(res))
				}
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// checkable reports whether r is a point the model can be checked against.
func checkable(r *analysis.Report) bool {
	_, _, ok := pointConfig(r.Config)
	return ok && len(r.Runs) > 0
}

func errNoCheckPoints(dirs []string) error {
	return fmt.Errorf("%s: no point with perjob and batch or startbatch on the threads backend to check the model against", strings.Join(dirs, ", "))
}

// pointConfig reads a sweep point's configuration; ok is false for points
// the model does not cover (not threads, no perjob, neither batch nor
// startbatch, a wake policy other than broadcast or targeted).
func pointConfig(c map[string]string) (gcsim.Config, pausemodel.Wake, bool) {
	cfg := gcsim.DefaultConfig()
	modes := strings.Split(c[analysis.ConfigModes], ",")
	batched := slices.ContainsFunc(batchedModes, func(b batchedMode) bool { return slices.Contains(modes, b.name) })
	if c["backend"] != "threads" || !slices.Contains(modes, "perjob") || !batched {
		return cfg, 0, false
	}
	var wake pausemodel.Wake
	switch c["wake"] {
	case "broadcast":
		wake = pausemodel.Broadcast
	case "targeted":
		wake = pausemodel.Targeted
	default:
		return cfg, 0, false
	}
	var err error
	var major, los, nursery int64
	if major, err = parseSize(c["major_heap"]); err != nil {
		return cfg, 0, false
	}
	if los, err = parseSize(c["los"]); err != nil {
		return cfg, 0, false
	}
	if nursery, err = parseSize(c["nursery"]); err != nil {
		return cfg, 0, false
	}
	workers, err := strconv.Atoi(c["workers"])
	if err != nil {
		return cfg, 0, false
	}
	seed, err := strconv.ParseUint(c["seed"], 10, 64)
	if err != nil {
		return cfg, 0, false
	}
	cfg.MajorHeap, cfg.LOS, cfg.Nursery, cfg.Workers, cfg.Seed = major, los, nursery, workers, seed
	return cfg, wake, cfg.Validate() == nil
}

// sortValidations orders the points as a reader compares them: by cores,
// most first, then wake policy, then workers.
func sortValidations(vals []validation) {
	workers := func(v validation) int { n, _ := strconv.Atoi(v.Config["workers"]); return n }
	slices.SortStableFunc(vals, func(a, b validation) int {
		return cmp.Or(cmp.Compare(b.Cores, a.Cores), cmp.Compare(a.Config["wake"], b.Config["wake"]), cmp.Compare(workers(a), workers(b)))
	})
}

// validationTable is the check of one batched mode: vals all have the
// same Batched. Only batch's check has a goal, 20%, for it compares SGen's
// two protocols; startbatch's reports its error alone. runErrors, if any,
// are the relative errors of the same check with each calibration run's
// own costs.
func validationTable(vals []validation, runErrors []float64) *analysis.Table {
	b := vals[0].Batched
	t := &analysis.Table{Title: fmt.Sprintf("model check: measured vs predicted mean pause (µs), perjob − %s", b)}
	if c := vals[0].Config["collector"]; c != "" { // cmdPredict lets only one kind in
		t.Title += fmt.Sprintf(" (points measured with collector=%s)", c)
	}
	t.Header = [][]string{{"wake", "workers", "cores", "perjob", b, "perjob−" + b, b + "/perjob", "predicted perjob", "predicted " + b,
		"predicted perjob−" + b, "predicted " + b + "/perjob", "error", "futile wake-ups", "predicted futile"}}
	for _, v := range vals {
		t.Rows = append(t.Rows, []string{v.Config["wake"], v.Config["workers"], strconv.Itoa(v.Cores),
			fmtFloat(v.MeasuredPerJob, 0), fmtFloat(v.MeasuredBatch, 0), fmtFloat(v.measuredDiff(), 0), fmtFloat(v.MeasuredBatch/v.MeasuredPerJob, 3),
			fmtFloat(v.PredictedPerJob, 0), fmtFloat(v.PredictedBatch, 0), fmtFloat(v.predictedDiff(), 0), fmtFloat(v.PredictedBatch/v.PredictedPerJob, 3),
			fmtFloat(v.predictedDiff()-v.measuredDiff(), 0),
			fmtFloat(v.MeasuredFutile, 1), strconv.Itoa(v.PredictedFutile)})
	}
	mae, rel := meanAbsError(vals)
	goal := ""
	if b == "batch" {
		verdict := "met"
		if rel > 20 {
			verdict = "MISSED"
		}
		goal = fmt.Sprintf(" (goal ≤ 20%%: %s)", verdict)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Mean absolute error of perjob−%s: %.0f µs, %.0f%% of the mean measured difference%s. "+
		"Measured: each point's Avg; predicted: pausemodel.Predict from this run's calibration.", b, mae, rel, goal))
	if note := errorBreakdown(vals); note != "" {
		t.Notes = append(t.Notes, note)
	}
	if len(runErrors) > 0 {
		errs := make([]string, len(runErrors))
		for i, e := range runErrors {
			errs[i] = fmt.Sprintf("%.0f%%", e)
		}
		t.Notes = append(t.Notes, "With each calibration run's own costs instead of their medians: "+strings.Join(errs, ", ")+".")
	}
	if note := floorNote(vals); note != "" {
		t.Notes = append(t.Notes, note)
	}
	return t
}

// partsTable says where the check's error lies: for each core count and
// wake policy, the perjob − batched difference of each part of the
// dispatch, measured (the anatomy's means) and predicted, averaged over
// its points. vals all have the same Batched.
func partsTable(vals []validation) *analysis.Table {
	b := vals[0].Batched
	t := &analysis.Table{Title: fmt.Sprintf("model check by part of the pause: perjob − %s (µs, mean over the points)", b)}
	header := []string{"cores", "wake", "points"}
	for _, p := range dispatchParts {
		header = append(header, p.label, "predicted "+p.label)
	}
	t.Header = [][]string{header}
	for _, c := range coreCounts(vals) {
		for _, w := range wakePolicies(vals) {
			of := where(vals, func(v validation) bool { return v.Cores == c && v.Config["wake"] == w })
			if len(of) == 0 {
				continue
			}
			row := []string{strconv.Itoa(c), w, strconv.Itoa(len(of))}
			for i := range dispatchParts {
				var measured, predicted float64
				known := 0
				for _, v := range of {
					predicted += v.PredictedParts[i] / float64(len(of))
					if !math.IsNaN(v.MeasuredParts[i]) {
						measured += v.MeasuredParts[i]
						known++
					}
				}
				cell := "" // no point of the row has an anatomy
				if known > 0 {
					cell = fmtFloat(measured/float64(known), 0)
				}
				row = append(row, cell, fmtFloat(predicted, 0))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = append(t.Notes, "Measured: the anatomy's means (dispatch: to the first job's start; first-to-last job span; "+
		"join: last job's end to resume), over the points that have one (blank if none has); predicted: the same parts of pausemodel.Predict's collections.")
	return t
}

// pointKey names what makes two validations the same point measured
// twice: everything but when it ran, on the same machine.
func pointKey(v validation) string {
	c := v.Config
	return fmt.Sprint(v.Host, v.Batched, v.Cores, c["wake"], c["workers"], c["major_heap"], c["los"], c["nursery"], c["seed"], c["collector"])
}

// measurementFloor is the error, in meanAbsError's terms, that a model
// predicting every point's mean difference exactly would show against the
// sweeps given: each repeated point's measured perjob − batched
// differences against their own mean, over the points measured more than
// once (points of them; replicas their measurements). It is how far
// repeated sweeps of this host disagree with each other, below which no
// model's error against one sweep can be trusted to fall.
func measurementFloor(vals []validation) (points, replicas int, mae, rel float64) {
	groups := map[string][]float64{}
	for _, v := range vals {
		groups[pointKey(v)] = append(groups[pointKey(v)], v.measuredDiff())
	}
	var absDev, absDiff float64
	for _, diffs := range groups {
		if len(diffs) < 2 {
			continue
		}
		points++
		replicas += len(diffs)
		var mean float64
		for _, d := range diffs {
			mean += d / float64(len(diffs))
		}
		for _, d := range diffs {
			absDev += math.Abs(d - mean)
			absDiff += math.Abs(d)
		}
	}
	if replicas == 0 {
		return 0, 0, 0, 0
	}
	return points, replicas, absDev / float64(replicas), 100 * absDev / math.Max(absDiff, 1e-9)
}

// floorNote states measurementFloor when some point was measured more
// than once (several --dir of the same grid), and nothing otherwise.
func floorNote(vals []validation) string {
	points, replicas, mae, rel := measurementFloor(vals)
	if points == 0 {
		return ""
	}
	perCores := ""
	if cores := coreCounts(vals); len(cores) > 1 {
		var parts []string
		for _, c := range cores {
			of := where(vals, func(v validation) bool { return v.Cores == c })
			if n, _, _, r := measurementFloor(of); n > 0 {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", coresLabel(c), r))
			}
		}
		perCores = " (" + strings.Join(parts, ", ") + ")"
	}
	unit := "points"
	if points == 1 {
		unit = "point"
	}
	return fmt.Sprintf("Measurement floor: %d %s measured %d times in all; each measurement's perjob−%s differs from its point's mean "+
		"by %.0f µs on average, %.0f%%%s of the mean measured difference: the error a model that predicted every point's mean exactly "+
		"would show against these sweeps.", points, unit, replicas, vals[0].Batched, mae, rel, perCores)
}

// errorBreakdown gives the relative error of each core count and, within
// it, of each wake policy, where vals hold more than one of either: the
// model may hold for one scheduler regime and not another, and one pooled
// figure hides which.
func errorBreakdown(vals []validation) string {
	cores, wakes := coreCounts(vals), wakePolicies(vals)
	if len(cores) < 2 && len(wakes) < 2 {
		return ""
	}
	relOf := func(keep func(validation) bool) float64 {
		_, rel := meanAbsError(where(vals, keep))
		return rel
	}
	var parts []string
	for _, c := range cores {
		part := fmt.Sprintf("%s %.0f%%", coresLabel(c), relOf(func(v validation) bool { return v.Cores == c }))
		var byWake []string
		for _, w := range wakes {
			if !slices.ContainsFunc(vals, func(v validation) bool { return v.Cores == c && v.Config["wake"] == w }) {
				continue
			}
			byWake = append(byWake, fmt.Sprintf("%s %.0f%%", w, relOf(func(v validation) bool { return v.Cores == c && v.Config["wake"] == w })))
		}
		if len(wakes) > 1 {
			part += " (" + strings.Join(byWake, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return "The same per core count and wake policy: " + strings.Join(parts, "; ") + "."
}

// coresLabel is "1 core", "2 cores", ...
func coresLabel(c int) string {
	if c == 1 {
		return "1 core"
	}
	return strconv.Itoa(c) + " cores"
}

// wakePolicies lists the wake policies of vals, in order of first appearance.
func wakePolicies(vals []validation) []string {
	var wakes []string
	for _, v := range vals {
		if w := v.Config["wake"]; !slices.Contains(wakes, w) {
			wakes = append(wakes, w)
		}
	}
	return wakes
}

// meanAbsError is the mean absolute error of the predicted perjob −
// batched differences (µs) and that error as a percentage of the mean
// absolute measured difference.
func meanAbsError(vals []validation) (mae, rel float64) {
	var absErr, absDiff float64
	for _, v := range vals {
		absErr += math.Abs(v.predictedDiff() - v.measuredDiff())
		absDiff += math.Abs(v.measuredDiff())
	}
	return absErr / float64(len(vals)), 100 * absErr / math.Max(absDiff, 1e-9)
}

// coreCounts lists the points' core counts, most first.
func coreCounts(vals []validation) []int {
	var cores []int
	for _, v := range vals {
		if !slices.Contains(cores, v.Cores) {
			cores = append(cores, v.Cores)
		}
	}
	slices.Sort(cores)
	slices.Reverse(cores)
	return cores
}

// predictionTable predicts each of o.cores (workers = cores) with the
// median costs and, given several calibration runs, gives the range of
// batch/perjob and startbatch/perjob over each run's own costs: how far
// the prediction rests on the medians.
func predictionTable(costs pausemodel.Costs, runs []pausemodel.Costs, w pausemodel.Work, o predictOptions) (*analysis.Table, error) {
	t := &analysis.Table{Title: fmt.Sprintf("prediction at the seed's shape (%s + %s, broadcast, workers = cores), mean pause (µs)",
		formatSize(o.major), formatSize(o.los))}
	header := []string{"cores", "jobs", "serial", "perjob", "batch", "startbatch", "batch/perjob", "startbatch/perjob", "perjob futile wake-ups"}
	if len(runs) > 1 {
		header = append(header, "batch/perjob by run", "startbatch/perjob by run")
	}
	t.Header = [][]string{header}
	for _, c := range o.cores {
		p, err := predictCores(costs, w, c)
		if err != nil {
			return nil, err
		}
		serial := w.Outside + w.Serial()
		row := []string{strconv.Itoa(c), strconv.Itoa(len(w.Jobs(c))), fmtFloat(micros(serial), 0),
			fmtFloat(micros(p.pause[0]), 0), fmtFloat(micros(p.pause[1]), 0), fmtFloat(micros(p.pause[2]), 0),
			fmtFloat(p.ratio(1), 3), fmtFloat(p.ratio(2), 3), strconv.Itoa(p.futile)}
		if len(runs) > 1 {
			var batch, start []float64
			for _, r := range runs {
				q, err := predictCores(r, w, c)
				if err != nil {
					return nil, err
				}
				batch, start = append(batch, q.ratio(1)), append(start, q.ratio(2))
			}
			row = append(row, fmtRange(batch, 3), fmtRange(start, 3))
		}
		t.Rows = append(t.Rows, row)
	}
	sgen := []string{"SGen, 8 cores", "65", fmtFloat(sgen8Core[0], 0), fmtFloat(sgen8Core[1], 0), fmtFloat(sgen8Core[2], 0), "",
		fmtFloat(sgen8Core[2]/sgen8Core[1], 3), "", ""}
	t.Rows = append(t.Rows, append(sgen, make([]string, len(header)-len(sgen))...))
	t.Notes = append(t.Notes, "SGen's row: the means its change reported on 8 real cores (mono/mono#20634); its heap and jobs are not this simulator's, "+
		"so compare the ratios, not the microseconds. The model's assumptions: go doc ./pausemodel.")
	if len(runs) > 1 {
		t.Notes = append(t.Notes, "By run: the lowest and highest ratio predicted with each calibration run's own costs instead of their medians.")
	}
	return t, nil
}

// coresPrediction is one core count predicted: the mean pauses of perjob,
// batch and startbatch, and perjob's futile wake-ups.
type coresPrediction struct {
	pause  [3]time.Duration
	futile int
}

// ratio is mode i's pause over perjob's.
func (p coresPrediction) ratio(i int) float64 { return float64(p.pause[i]) / float64(p.pause[0]) }

func predictCores(costs pausemodel.Costs, w pausemodel.Work, cores int) (coresPrediction, error) {
	var p coresPrediction
	for i, proto := range []pausemodel.Protocol{pausemodel.PerJob, pausemodel.Batch, pausemodel.StartBatch} {
		d, res, err := pausemodel.Predict(costs, w, cores, cores, proto, pausemodel.Broadcast)
		if err != nil {
			return p, err
		}
		p.pause[i] = d
		if proto == pausemodel.PerJob {
			p.futile = res.FutileWakeups
		}
	}
	return p, nil
}

// fmtRange is spread(xs), or one value if its ends are equal once
// formatted.
func fmtRange(xs []float64, prec int) string {
	if lo := fmtFloat(slices.Min(xs), prec); lo == fmtFloat(slices.Max(xs), prec) {
		return lo
	}
	return spread(xs, prec)
}
