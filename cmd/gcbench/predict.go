package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/modelcheck"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/spf13/pflag"
)

const predictUsage = `usage: gcbench predict --dir POINTS [--dir POINTS ...] [flags]
       gcbench predict --quick [flags]

Checks package pausemodel's model of SGen's pool protocol on the kernel
(the native backend: pthread mutex, condition broadcast, the kernel's wake
placement) against native sweep points, then predicts batch/perjob on
--cores. The model is calibrated only from microbenchmarks of this host's
native primitives, for each mutex kind (normal and pi), each cost the
median of --calibrations runs, and from serial collections (the cost of
each job); it is never fitted to the pauses it is checked against.

The check reads every point with perjob and batch under broadcast in each
--dir ('gcbench sweep --backend native --mutex normal,pi', with --modes
serial,perjob,batch; a sweep run under 'taskset -c 0' checks one core)
and prints four verdict lines, each ending in PASSED or MISSED:

  check 1 (exact counts): broadcasts, lock acquisitions and wake calls
    per collection are the protocol's, at every point;
  check 2 (futile wake-ups given the kernel's observables): with the
    collector's measured preemptions, the wake-ups' measured placement
    and the workers asleep on the mutex fed in, futile wake-ups within
    ±30% at 80% of the points (MISSED where not recorded);
  check 3 (pause envelope): each measured mean pause between the lowest
    and the highest of the model's under each extreme of three choices
    (no wake-up preemption or preemption on every wake; an idle core
    takes a queued thread at once or at the next tick; the Go runtime's
    sysmon asleep or looking at its shortest sleep), within 1.96
    standard errors, at 90% of the points; a point swept with serial
    collections (--modes serial,perjob,batch) has its jobs priced by them;
  check 4 (one core): on one core, up to 8 workers, a mean absolute error
    of perjob − batch of at most 20% of the measured difference plus the
    measurement floor, which repeated sweeps of one grid (one --dir each)
    give.

Then the tables: the predicted perjob − batch beside the measured one,
point by point and by part of the pause, with the same error over every
point, and check 3's ceiling: how many points envelopes as wide as the
model's could hold at all, each point's scaled to fit its repeats, which
says whether the sweeps given can decide check 3. Points of the Go
backends (threads, goroutines) are shown beside, measured only, the gap
to native labelled as the Go runtime's effect.
Then, for each core count and mutex kind, scenarios not validated on this
host: the range of batch/perjob over the costs' plausible spread, the
cost that decides it, a single ratio only where that range is narrow,
and the timing-free facts (broadcasts, lock acquisitions, bounds on
futile wake-ups).

--quick is a small check: one calibration per kind, small heaps, --cores
8,16; without --dir it first sweeps its own native points (workers
1,2,4,8, a 64MiB heap, 20 collections, on every core and on one CPU, two
repeats) into a temporary directory. It takes under a minute on 2 cores.

flags:
`

type predictOptions struct {
	dirs         []string
	calibrations int
	cores        []int
	major, los   int64
	format       render.Format
	calibrateGCs int
	slowdownGCs  int
	html         string
	quick        bool
}

func cmdPredict(ctx context.Context, e *env, args []string) error {
	o, fs := predictOptions{}, newFlagSet("predict")
	o.define(fs)
	if done, err := parseOnlyFlags(fs, args, e.stdout, predictUsage); done {
		return err
	}
	o.applyQuick(fs)
	if err := o.check(fs); err != nil {
		return err
	}
	if o.quick {
		if err := nativeGuard(workerpool.NativeAvailable); err != nil { // before the sweeps' minutes
			return err
		}
	}
	if o.quick && len(o.dirs) == 0 {
		dirs, remove, err := makeQuickPoints(ctx, e.stderr)
		if err != nil {
			return err
		}
		defer remove()
		o.dirs = dirs
	}
	reports, err := readPoints(ctx, o)
	if err != nil {
		return err
	}
	return predict(ctx, e, o, reports)
}

// define defines predict's flags on fs, in the order its help lists them.
func (o *predictOptions) define(fs *pflag.FlagSet) {
	fs.SortFlags = false
	fs.StringArrayVar(&o.dirs, "dir", nil, "a directory of sweep points to check the model against (required; repeat it for several sweeps, and for repeated sweeps of one grid, which give the measurement floor)")
	fs.Var(flagvalue.NewInt(&o.calibrations, 3, 1, 100), "calibrations", "calibration runs per mutex kind; each cost is their median, their range the spread the prediction covers")
	fs.Var(flagvalue.NewList(&o.cores, []int{8, 16, 64}, flagvalue.IntIn(1, workerpool.MaxWorkers)), "cores",
		"core counts to predict, with workers = cores")
	fs.Var(flagvalue.NewSize(&o.major, 2560<<20, 0), "major-heap", "major heap `size` of the predictions (the seed's)")
	fs.Var(flagvalue.NewSize(&o.los, 1<<30, 0), "los", "large-object space `size` of the predictions (the seed's)")
	fs.Var(flagvalue.NewInt(&o.calibrateGCs, 30, 1, 10000), "calibration-gcs", "serial collections that measure each heap's job costs")
	fs.Var(flagvalue.NewInt(&o.slowdownGCs, 200, 1, 10000), "slowdown-gcs", "collections per mode in each of the three runs that measure "+
		"the jobs' slowdown on the pool's workers (pausemodel.MeasureSlowdown; on the 2-core VM, at one worker, three back-to-back runs "+
		"of 30 read 1.01–1.15 and of 200 1.01–1.06, and the nine runs of 200 in three predicts 1.01–1.10)")
	fs.Var(formatFlag(&o.format), "format", "output format: text, markdown or csv (the tables' rows only: "+
		"the calibration lines go to standard error, and the notes, the check's verdict among them, are in text and markdown)")
	fs.StringVar(&o.html, "html", "", "also write the calibration and every table, with its notes, as one self-contained HTML page to `FILE`")
	fs.BoolVar(&o.quick, "quick", false, "a small check (one calibration, small heaps, --cores 8,16) that, without --dir, sweeps its own native points first")
}

// check refuses bad usage after parsing: before reading points, and
// before the calibration's seconds, a heap gcsim would refuse, or this
// machine cannot hold.
func (o predictOptions) check(fs *pflag.FlagSet) error {
	if len(o.dirs) == 0 && !o.quick {
		return usagef("--dir is required: the sweep points that check the model (or --quick, which makes its own)")
	}
	if o.format == render.JSON {
		return usagef("--format json: predict has no JSON document; want text, markdown or csv")
	}
	return checkConfig(o.predictionConfig(), fs)
}

// readPoints reads every point of o.dirs, refusing a sweep given twice
// (it would read as a measurement floor of 0), a point that is also an
// output, and points the check cannot pool.
func readPoints(ctx context.Context, o predictOptions) ([]*report.Report, error) {
	names, _, err := reportInputs(o.dirs)
	if err != nil {
		return nil, err
	}
	if err := checkPaths(nil, pathsOf("--dir", o.dirs)); err != nil {
		return nil, err
	}
	if err := checkPaths(append(stdoutPath(), outfile.Path{Name: "--html", Path: o.html}), pathsOf("point", names)); err != nil {
		return nil, err
	}
	reports, err := report.ReadFiles(ctx, names)
	if err != nil {
		return nil, err
	}
	switch err := modelcheck.Poolable(reports); {
	case errors.Is(err, gcsim.ErrNoSettings):
		return nil, usagef("%v: sweep it again with this gcbench (gcbench sweep, with the settings its configuration lists)", err)
	case errors.Is(err, modelcheck.ErrMixedCollectors):
		return nil, usagef("--dir: %v; check points made with and without --lock-collector apart", err)
	case err != nil:
		return nil, err
	}
	return reports, nil
}

// predictionConfig is the simulation whose jobs the predictions use: the
// defaults at --major-heap and --los.
func (o predictOptions) predictionConfig() gcsim.Config {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS = o.major, o.los
	return cfg
}

// slowdownRuns is how many runs measure each slowdown: their median is
// the factor, and their spread its uncertainty (modelcheck.Slowdown).
const slowdownRuns = 3

// factors lists fs as predict prints them.
func factors(fs []float64) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = fmt.Sprintf("%.3f", f)
	}
	return strings.Join(s, ", ")
}

// predict calibrates the model, checks it against reports and predicts
// on --cores, printing each kind's calibration as it comes, then the
// tables.
func predict(ctx context.Context, e *env, o predictOptions, reports []*report.Report) error {
	if !slices.ContainsFunc(reports, modelcheck.Checkable) { // before the calibration's seconds, not after
		return fmt.Errorf("%s: no native point with perjob and batch under broadcast to check the model against "+
			"(gcbench sweep --backend native --mutex normal,pi --wake broadcast)", strings.Join(o.dirs, ", "))
	}
	if err := nativeGuard(workerpool.NativeAvailable); err != nil {
		return err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), pausemodel.CalibrationProcs)))
	head := e.stdout
	if o.format == render.CSV {
		head = e.stderr // CSV holds the tables' rows alone
	}
	var facts []render.Fact // the calibration's, printed as they come and kept for --html
	on := host.Describe(host.Probe())
	cal, err := modelcheck.Calibrate(ctx, o.calibrations, func(k workerpool.MutexKind, cal modelcheck.Calibration) {
		kind := cal.Facts(k, on)
		fmt.Fprintf(head, "gcbench predict: calibration of the native pool, %v mutex, %s\n", k, kind[0].Value)
		for _, f := range kind[1:] {
			fmt.Fprintf(head, "%s: %s\n", f.Key, f.Value)
		}
		facts = append(facts, kind...)
	})
	if err != nil {
		return err
	}
	measure := modelcheck.Measure{
		Work: func(cfg gcsim.Config) (pausemodel.Work, error) {
			return pausemodel.MeasureWork(ctx, cfg, o.calibrateGCs)
		},
		Slowdown: func(cfg gcsim.Config, k int) (modelcheck.Slowdown, error) {
			runs := make([]float64, slowdownRuns)
			for i := range runs {
				f, err := pausemodel.MeasureSlowdown(ctx, cfg, k, o.slowdownGCs)
				if err != nil {
					return modelcheck.Slowdown{}, err
				}
				runs[i] = f
			}
			s := modelcheck.SlowdownOf(runs)
			fmt.Fprintf(head, "gcbench predict: the jobs of %s + %s on %d of the pool's workers at once: %.3f× their serial cost "+
				"(%d runs: %s; relative standard error %.1f%%)\n", bytesize.Format(cfg.MajorHeap), bytesize.Format(cfg.LOS), k, s.F,
				len(runs), factors(runs), 100*s.RelSE)
			return s, nil
		},
	}
	verdicts, tables, err := modelcheck.Tables(cal, reports, measure, o.predictionConfig(), o.cores)
	if err != nil {
		return err
	}
	for _, l := range verdicts {
		fmt.Fprintln(head, l)
		facts = append(facts, render.Fact{Key: "verdict", Value: l})
	}
	return writePrediction(ctx, e, o, facts, tables)
}

// writePrediction prints the tables, then writes them with the
// calibration's lines to --html if it is set.
func writePrediction(ctx context.Context, e *env, o predictOptions, calibration []render.Fact, tables []*render.Table) error {
	if err := render.WriteTables(e.stdout, o.format, tables...); err != nil {
		return err
	}
	if o.html == "" {
		return nil
	}
	return e.save(ctx, "--html", o.html, true, func(w io.Writer) error {
		return render.WriteTablesHTML(w, "gcbench predict", calibration, tables...)
	})
}
