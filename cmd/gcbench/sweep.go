package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/termprogress"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/spf13/pflag"
)

const sweepUsage = `usage: gcbench sweep --dir DIR [flags]

Runs 'gcbench run' over a grid: every combination of --workers, --wake,
--backend, --mutex (native points only), --major-heap and --los is one
point, an interleaved comparison of --modes, saved as DIR/POINT.json
(written atomically, named by the point).
A point whose file exists is skipped, so an interrupted sweep resumes where
it stopped; an interrupted point is not saved. A point that fails (a full
heap) is not saved either: the sweep goes on with the next, then exits 1
naming the failed ones. --shard i/n runs only the points whose index is i
modulo n, so the n tasks of a cluster scheduler's array job share one
grid. 'gcbench report DIR...' prints the scaling table.

flags:
`

// sweepOptions are sweep's parsed flags: the grid and what every point
// shares.
type sweepOptions struct {
	dir                   string
	grid                  gcsim.Grid
	base                  runOptions // nursery, gcs, warmup, modes, seed, gomaxprocs, lock-collector, kernel-snapshot
	shardIndex, shardSize int
}

func parseSweepFlags(args []string, stdout io.Writer) (*sweepOptions, error) {
	def := gcsim.DefaultConfig()
	o := &sweepOptions{base: runOptions{Experiment: gcsim.Experiment{Config: def}}}
	fs := newFlagSet("sweep")
	fs.SortFlags = false
	fs.StringVar(&o.dir, "dir", "", "directory of the points' JSON files (created if missing; required)")
	fs.Var(flagvalue.NewList(&o.grid.Workers, []int{1, 2, 4, 8, 16, 32}, flagvalue.IntIn(1, workerpool.MaxWorkers)), "workers", "worker counts")
	fs.Var(flagvalue.NewList(&o.grid.Wakes, []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Targeted}, flagvalue.OneOf(workerpool.ParseWakePolicy,
		workerpool.WakePolicyNames())), "wake", "wake policies")
	fs.Var(flagvalue.NewList(&o.grid.Backends, []workerpool.Backend{workerpool.Threads}, flagvalue.OneOf(workerpool.ParseBackend, workerpool.BackendNames())),
		"backend", "worker backends")
	fs.Var(flagvalue.NewList(&o.grid.Mutexes, []workerpool.MutexKind{workerpool.MutexPI}, flagvalue.OneOf(workerpool.ParseMutexKind, workerpool.MutexKindNames())),
		"mutex", "pthread mutex kinds of the native backend's points (each native point runs once per kind)")
	fs.Var(flagvalue.NewList(&o.grid.MajorHeaps, []int64{512 << 20}, bytesize.Parse).Showing(bytesize.Format), "major-heap", "major heap sizes")
	fs.Var(flagvalue.NewList(&o.grid.LOSes, []int64{256 << 20}, bytesize.Parse).Showing(bytesize.Format), "los", "large-object space sizes")
	fs.Var(flagvalue.NewSize(&o.base.Config.Nursery, def.Nursery, 0), "nursery", "nursery `size` of every point")
	fs.Var(flagvalue.NewInt(&o.base.GCs, 300, 1, gcsim.MaxCollections), "gcs", "timed minor collections per mode and point")
	fs.Var(flagvalue.NewInt(&o.base.Warmup, 20, 0, gcsim.MaxCollections), "warmup", "untimed collections per mode and point")
	fs.Var(flagvalue.NewList(&o.base.Modes, []gcsim.Mode{gcsim.PerJob, gcsim.Batch}, flagvalue.OneOf(gcsim.ParseMode, gcsim.ModeNames())), "modes",
		"modes each point compares, in column order; report compares the last two")
	fs.Uint64Var(&o.base.Config.Seed, "seed", def.Seed, "seed of the mutator's random choices")
	fs.Var(flagvalue.NewInt(&o.base.GOMAXPROCS, 0, 0, gcsim.MaxGOMAXPROCS), "gomaxprocs", "GOMAXPROCS per point; 0 = auto, as run's")
	registerLockCollector(fs, &o.base.LockCollector, false)
	registerKernelSnapshot(fs, &o.base.Config.KernelSnapshot, false)
	registerHerdLimit(fs, &o.base.herdLimit)
	o.shardSize = 1 // before the flag, whose help shows it: every point, 0/1
	fs.Var(flagvalue.NewShard(&o.shardIndex, &o.shardSize), "shard", "`i/n`: run only the points whose index is i modulo n (0 ≤ i < n), e.g. "+
		"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT or $JOB_COMPLETION_INDEX/N")
	if done, err := parseOnlyFlags(fs, args, stdout, sweepUsage); done {
		return nil, err
	}
	return o, o.validate(fs)
}

// validate checks every point's configuration and the directory before
// any point runs.
func (o *sweepOptions) validate(fs *pflag.FlagSet) error {
	if o.dir == "" {
		return usagef("--dir is required: the directory the points are saved in")
	}
	if len(o.base.Modes) < 2 {
		return usagef("--modes %s: a sweep compares at least two modes", strings.Join(o.base.ModeNames(), ","))
	}
	if fs.Changed("mutex") && !slices.ContainsFunc(o.grid.Backends, workerpool.Backend.HasMutexKinds) {
		return usagef("--mutex: only the native backend has mutex kinds, and --backend has no native")
	}
	if o.base.Config.KernelSnapshot && !slices.Contains(o.grid.Backends, workerpool.Native) {
		return usagef("--kernel-snapshot: only the native backend's workers are read, and --backend has no native")
	}
	for _, p := range o.points() { // every point, before the first runs
		if err := checkExperiment(p.Experiment, p.herdLimit, fs); err != nil {
			return usagef("point %s: %v", p.name(), err)
		}
	}
	if err := os.MkdirAll(o.dir, 0o777); err != nil {
		return usagef("--dir: %v", err)
	}
	return nil
}

// checkPoints refuses, before the first point runs, a point still to run
// whose file could not be written, and standard output open on a point's
// file (the sweep prints there).
func (o *sweepOptions) checkPoints(todo, done []*runOptions) error {
	pointPaths := func(ps []*runOptions) []outfile.Path {
		files := make([]string, len(ps))
		for i, p := range ps {
			files[i] = o.path(p)
		}
		return pathsOf("point", files)
	}
	return checkPaths(append(pointPaths(todo), stdoutPath()...), pointPaths(done))
}

// points lists the grid's points, each a run of o.base at one of the
// grid's configurations, in gcsim.Grid.Configs's fixed order.
func (o *sweepOptions) points() []*runOptions {
	var out []*runOptions
	for _, cfg := range o.grid.Configs(o.base.Config) {
		p := o.base
		p.Modes = slices.Clone(o.base.Modes)
		p.Config = cfg
		out = append(out, &p)
	}
	return out
}

// name is a point's file name (without .json): what varies in a grid.
func (o *runOptions) name() string { return o.Config.PointName() }

// cmdSweep is `gcbench sweep`.
func cmdSweep(ctx context.Context, e *env, args []string) error {
	o, err := parseSweepFlags(args, e.stdout)
	if o == nil || err != nil {
		return err
	}
	all := o.points()
	todo, finished, err := o.shard(ctx, all)
	if err != nil {
		return err
	}
	if err := o.checkPoints(todo, finished); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "gcbench sweep: %d points in the grid, %d in this shard still to run, into %s\n",
		len(all), len(todo), o.dir)
	return o.run(ctx, e, todo)
}

// shard splits this shard's points of all into those still to run and
// those saved in --dir already.
func (o *sweepOptions) shard(ctx context.Context, all []*runOptions) (todo, finished []*runOptions, err error) {
	for i, p := range all {
		if i%o.shardSize != o.shardIndex {
			continue
		}
		done, err := pointDone(ctx, o.path(p), p)
		if err != nil {
			return nil, nil, err
		}
		if done {
			finished = append(finished, p)
		} else {
			todo = append(todo, p)
		}
	}
	return todo, finished, nil
}

// path is the file in --dir that p is saved in.
func (o *sweepOptions) path(p *runOptions) string { return filepath.Join(o.dir, p.name()+".json") }

// run runs and saves the points of todo in order. A point's own failure
// is reported and the sweep goes on, then fails naming the failed points;
// any other error, a stop among them, ends it.
func (o *sweepOptions) run(ctx context.Context, e *env, todo []*runOptions) error {
	bar := termprogress.SeriesOnTerminal(e.stderr, "sweep", len(todo)*len(o.base.Modes)*o.base.GCs) // nil, a no-op, off a terminal
	defer bar.Finish()
	var failed []string
	for i, p := range todo {
		err := runPoint(ctx, e, p, o.path(p), bar)
		switch {
		case err == nil:
			fmt.Fprintf(e.stdout, "point %d/%d saved: %s.json\n", i+1, len(todo), p.name())
		case errors.Is(err, errSavedByAnother):
			fmt.Fprintf(e.stdout, "point %d/%d already saved by another sweep into the directory: %s.json\n", i+1, len(todo), p.name())
		case pointFailed(err) && ctx.Err() == nil:
			// The point's own failure (its heap filled up, a verification
			// failed): the other points can still be measured.
			fmt.Fprintf(e.stderr, "gcbench sweep: point %s failed, not saved: %v\n", p.name(), err)
			failed = append(failed, p.name())
		default:
			return fmt.Errorf("point %s: %w", p.name(), err)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of the %d points run failed and were not saved: %s", len(failed), len(todo),
			strings.Join(failed, ", "))
	}
	return nil
}

// pointFailed reports whether err is a point's own failure, after which
// the sweep goes on with the next point: a full major heap or a failed
// verification, which another point's settings need not meet.
func pointFailed(err error) bool {
	return errors.Is(err, heap.ErrMajorHeapFull) || errors.Is(err, heap.ErrVerify)
}

// pointDone reports whether path holds a saved point of p's experiment
// (gcsim.Experiment.DiffReport: by its typed settings, or a version-1
// point's shown ones); a file that is not one, or one of another
// experiment, is an error: the sweep never overwrites what it cannot
// account for.
func pointDone(ctx context.Context, path string, p *runOptions) (bool, error) {
	r, err := report.ReadFile(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w (move it away, or sweep into another --dir)", err)
	}
	d, err := p.DiffReport(r)
	switch {
	case err != nil:
		return false, fmt.Errorf("%s: %w (move it away, or sweep into another --dir)", path, err)
	case d != nil:
		return false, fmt.Errorf("%s was made with %s=%s, this sweep asks %s: sweep into another --dir", path, d.Key, d.Report, d.Experiment)
	}
	return true, nil
}

// runPoint runs one point as `gcbench run` would and saves its report to
// path.
func runPoint(ctx context.Context, e *env, p *runOptions, path string, bar *termprogress.Series) error {
	defer p.setProcs()()
	started := time.Now()
	res, err := p.Run(ctx, func(m gcsim.Mode, done, total int) { bar.Update(slices.Index(p.Modes, m), done) })
	bar.Next()
	if err != nil {
		return err // an interrupted point is not saved: resuming runs it again
	}
	report, err := reportOf(p.Experiment, res, gcsim.ReportOptions{Host: host.Probe(), Started: started})
	if err != nil {
		return err
	}
	err = e.saveNew("point", path, report.WriteJSON)
	if errors.Is(err, fs.ErrExist) {
		// Another sweep into the same directory saved the point first (an
		// Indexed Job can run one index twice): its file stays, and if it
		// is this point with these settings, the sweep goes on.
		if done, derr := pointDone(ctx, path, p); derr == nil && done {
			var kept *outfile.KeptError
			if errors.As(err, &kept) {
				os.Remove(kept.Path) // ours, just made: the point it holds is saved in --dir already
			}
			return errSavedByAnother
		}
	}
	return err
}

// errSavedByAnother is runPoint's when another sweep into the same
// directory saved the same point, with the same settings, first.
var errSavedByAnother = errors.New("saved by another sweep meanwhile")
