package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/internal/host"
	"github.com/gcbench/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/pausemodel/check"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/report"
	"github.com/gcbench/gcbench/workerpool"
)

const predictUsage = `usage: gcbench predict --dir POINTS [--dir POINTS ...] [flags]

Checks package pausemodel's model of SGen's pool protocol on the kernel
(the native backend: pthread mutex, condition broadcast, the kernel's wake
placement) against native sweep points, then predicts batch/perjob on
--cores. The model is calibrated only from microbenchmarks of this host's
native primitives, for each mutex kind (normal and pi), each cost the
median of --calibrations runs, and from serial collections (the cost of
each job); it is never fitted to the pauses it is checked against.

The check reads every point with perjob and batch under broadcast in each
--dir ('gcbench sweep --backend native --mutex normal,pi'; a sweep run
under 'taskset -c 0' checks one core) and prints the predicted perjob −
batch beside the measured one, point by point and by part of the pause,
and the futile wake-ups; its goal is a mean absolute error of at most 20%
of the measured difference plus the measurement floor, which repeated
sweeps of one grid (one --dir each) give. Points of the Go backends
(threads, goroutines) are shown beside, measured only, the gap to native
labelled as the Go runtime's effect. The prediction prints, for each core
count and mutex kind, the range of batch/perjob over the costs' plausible
spread, the cost that decides it, a single ratio only where that range is
narrow, and the timing-free facts (broadcasts, lock acquisitions, bounds
on futile wake-ups).

flags:
`

type predictOptions struct {
	dirs         []string
	calibrations int
	cores        []int
	major, los   int64
	format       render.Format
	calibrateGCs int
	html         string
}

func cmdPredict(ctx context.Context, e *env, args []string) error {
	o := predictOptions{}
	fs := newFlagSet("predict")
	fs.SortFlags = false
	fs.StringArrayVar(&o.dirs, "dir", nil, "a directory of sweep points to check the model against (required; repeat it for several sweeps, and for repeated sweeps of one grid, which give the measurement floor)")
	fs.Var(newIntValue(&o.calibrations, 3, 1, 100), "calibrations", "calibration runs per mutex kind; each cost is their median, their range the spread the prediction covers")
	fs.Var(newListValue(&o.cores, []int{8, 16, 64}, boundedInt(1, workerpool.MaxWorkers), "core counts"), "cores",
		"core counts to predict, with workers = cores")
	fs.Var(newSizeValue(&o.major, 2560<<20, 0), "major-heap", "major heap `size` of the predictions (the seed's)")
	fs.Var(newSizeValue(&o.los, 1<<30, 0), "los", "large-object space `size` of the predictions (the seed's)")
	fs.Var(newIntValue(&o.calibrateGCs, 30, 1, 10000), "calibration-gcs", "serial collections that measure each heap's job costs")
	fs.Var(formatValue{&o.format}, "format", "output format: text, markdown or csv (the tables' rows only: "+
		"the calibration lines go to standard error, and the notes, the check's verdict among them, are in text and markdown)")
	fs.StringVar(&o.html, "html", "", "also write the calibration and every table, with its notes, as one self-contained HTML page to `FILE`")
	if done, err := parseFlags(fs, args, e.stdout, predictUsage); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if len(o.dirs) == 0 {
		return usagef("--dir is required: the sweep points that check the model")
	}
	if o.format == render.JSON {
		return usagef("--format json: predict has no JSON document; want text, markdown or csv")
	}
	// Before the calibration's seconds: a heap gcsim would refuse, or this machine cannot hold.
	if err := checkConfig(o.predictionConfig(), fs); err != nil {
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
	if err := checkPaths(append(stdoutPath(), outfile.Path{Name: "--html", Path: o.html}), pathsOf("point", names)); err != nil {
		return err
	}
	var reports []*report.Report
	for _, n := range names {
		r, err := readReport(ctx, n)
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	if err := checkablePoints(reports, names); err != nil {
		return err
	}
	return predict(ctx, e, o, reports)
}

// predictionConfig is the simulation whose jobs the predictions use: the
// defaults at --major-heap and --los.
func (o predictOptions) predictionConfig() gcsim.Config {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS = o.major, o.los
	return cfg
}

// checkablePoints refuses points saved before typed settings, which the
// check cannot read, and points made with and without --lock-collector
// together: one check would pool two measured systems.
func checkablePoints(reports []*report.Report, names []string) error {
	for i, r := range reports {
		if !check.HasSettings(r) {
			return usagef("%s: a point of schema %s, saved without typed settings: sweep it again with this gcbench "+
				"(gcbench sweep, with the settings its configuration lists)", names[i], r.Schema)
		}
		if got, first := r.Config[configCollector], reports[0].Config[configCollector]; got != first {
			return usagef("--dir: %s was made with collector=%q, %s with %q: check points made with and without "+
				"--lock-collector apart", names[0], first, names[i], got)
		}
	}
	return nil
}

// kinds are the mutex kinds the model is calibrated and predicts for.
var kinds = []pausemodel.Mutex{pausemodel.Normal, pausemodel.PI}

func predict(ctx context.Context, e *env, o predictOptions, reports []*report.Report) error {
	if !slices.ContainsFunc(reports, nativeCheckable) { // before the calibration's seconds, not after
		return fmt.Errorf("%s: no native point with perjob and batch under broadcast to check the model against "+
			"(gcbench sweep --backend native --mutex normal,pi --wake broadcast)", strings.Join(o.dirs, ", "))
	}
	if !workerpool.NativeAvailable {
		return errors.New("predict calibrates the native backend, which this build lacks (it needs cgo on Linux)")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 9))) // the herd benchmark's 8 workers + 1
	head := e.stdout
	if o.format == render.CSV {
		head = e.stderr // CSV holds the tables' rows alone
	}
	var calibration []render.Fact // the lines above the tables, for --html
	medians := map[pausemodel.Mutex]pausemodel.Costs{}
	runs := map[pausemodel.Mutex][]pausemodel.Costs{}
	for _, k := range kinds {
		m, all, err := pausemodel.Calibrate(ctx, o.calibrations, k)
		if err != nil {
			return fmt.Errorf("calibrating the %v mutex: %w", k, err)
		}
		medians[k], runs[k] = m, all
		fmt.Fprintf(head, "gcbench predict: calibration of the native pool, %v mutex, on %s, median of %d runs: %v\n",
			k, host.Describe(host.Probe()), len(all), m)
		calibration = append(calibration, render.Fact{Key: fmt.Sprintf("calibration, %v mutex", k),
			Value: fmt.Sprintf("on %s, median of %d runs: %v", host.Describe(host.Probe()), len(all), m)})
		if len(all) > 1 {
			fmt.Fprintf(head, "calibration runs' range (%v): %s\n", k, pausemodel.RangeOf(all))
			calibration = append(calibration, render.Fact{Key: fmt.Sprintf("calibration runs' range (%v)", k), Value: pausemodel.RangeOf(all).String()})
		}
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
	vals, err := check.Validate(medians, reports, work)
	if err != nil {
		return err
	}
	// What each calibration run's own costs make of the check shows how
	// far its verdict rests on the medians.
	var runErrors []float64
	for i := range o.calibrations {
		if o.calibrations < 2 {
			break
		}
		byRun := map[pausemodel.Mutex]pausemodel.Costs{}
		for _, k := range kinds {
			byRun[k] = runs[k][i]
		}
		v, err := check.Validate(byRun, reports, work)
		if err != nil {
			return err
		}
		_, rel := check.MeanAbsError(v)
		runErrors = append(runErrors, rel)
	}
	tables := []*render.Table{check.ValidationTable(vals, runErrors), check.PartsTable(vals)}
	if gos := check.GoPoints(reports); len(gos) > 0 {
		tables = append(tables, check.GoRuntimeTable(gos, vals))
	}
	w, err := work(o.predictionConfig())
	if err != nil {
		return fmt.Errorf("measuring job costs at %s + %s: %w", bytesize.Format(o.major), bytesize.Format(o.los), err)
	}
	// The simulations are independent and deterministic: run the rows
	// side by side (64 cores under PI take seconds each).
	many := make([]check.ManyCore, len(o.cores)*len(kinds))
	errs := make([]error, len(many))
	var wg sync.WaitGroup
	for i, c := range o.cores {
		for j, k := range kinds {
			wg.Go(func() {
				many[i*len(kinds)+j], errs[i*len(kinds)+j] = check.PredictManyCore(medians[k], runs[k], w, c, k)
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	tables = append(tables, check.ManyCoreTable(many, bytesize.Format(o.major)+" + "+bytesize.Format(o.los)), check.FactsTable(o.cores))
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if err := t.Write(e.stdout, o.format); err != nil {
			return err
		}
	}
	if o.html != "" {
		return e.save(ctx, "--html", o.html, true, func(w io.Writer) error {
			return render.WriteTablesHTML(w, "gcbench predict", calibration, tables...)
		})
	}
	return nil
}

// nativeCheckable reports whether r is a native point the model can be
// checked against.
func nativeCheckable(r *report.Report) bool {
	p, ok := check.ReadPoint(r)
	return ok && p.Backend == "native" && len(r.Runs) > 0
}
