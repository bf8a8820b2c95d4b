package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"runtime/pprof"
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
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/spf13/pflag"
)

// runUsage is run's --help text before the flags; %s is the default run's
// memory (memoryText of heapMemory).
const runUsage = `usage: gcbench [run] [flags]

Measures minor-collection pauses of a simulated generational heap, one
collection at a time in each mode, interleaved in rotating rounds (serial,
perjob, batch, then perjob, batch, serial, ...), and prints the pause
table: statistics per mode in microseconds, then the improvement of the
last mode over each earlier one with its Mann–Whitney p-value. With no
flags it runs the seed experiment: a 2.5 GiB major heap, a 1 GiB
large-object space, 1500 collections per mode; it needs about %s of
memory (the heap's spaces and tables). Off a terminal it prints a start
line on standard error, then a progress line at most every 10 s;
--quiet prints neither (nor the bar on a terminal).

Sizes take a unit: 2.5GiB, 2560MiB, 4MiB (binary) or 1GB, 500MB (decimal).

flags:
`

// runOptions are run's parsed flags: the experiment, and what run does
// with it.
type runOptions struct {
	gcsim.Experiment
	config     string // --config: the report the experiment was read from, an input
	herdLimit  int    // --herd-limit: gcsim.Experiment.CheckHerd's limit
	cpuprofile string
	trace      string
	quiet      bool // --quiet: no start line, no progress
	output     outputFlags
}

// parseRunFlags parses run's arguments. It returns (nil, nil) after
// printing --help.
func parseRunFlags(ctx context.Context, args []string, stdout io.Writer) (*runOptions, error) {
	base, config, err := runDefaults(ctx, args)
	if err != nil {
		return nil, err
	}
	def := base.Config
	o := &runOptions{Experiment: base, config: config}
	fs := newFlagSet("run")
	fs.SortFlags = false
	fs.String("config", config, "rerun the experiment saved in report `FILE.json` (gcbench run --format json): its settings "+
		"become the flags' defaults, so a flag given beside it overrides that setting alone")
	fs.Var(flagvalue.NewSize(&o.Config.MajorHeap, def.MajorHeap, 0), "major-heap", "major heap `size`: old objects in 16 KiB blocks")
	fs.Var(flagvalue.NewSize(&o.Config.LOS, def.LOS, 0), "los", "large-object space `size`: objects over 8000 bytes")
	fs.Var(flagvalue.NewSize(&o.Config.Nursery, def.Nursery, 0), "nursery", "nursery `size`: what the mutator fills between two minor collections")
	fs.Var(flagvalue.NewInt(&o.Config.Workers, def.Workers, 1, workerpool.MaxWorkers), "workers", "collector workers, one per CPU unless set")
	fs.Var(flagvalue.NewInt(&o.GCs, base.GCs, 1, gcsim.MaxCollections), "gcs", "timed minor collections per mode")
	fs.Var(flagvalue.NewInt(&o.Warmup, base.Warmup, 0, gcsim.MaxCollections), "warmup", "untimed collections per mode before timing starts")
	fs.Var(flagvalue.NewList(&o.Modes, base.Modes, flagvalue.OneOf(gcsim.ParseMode, gcsim.ModeNames())), "modes",
		"modes to compare, in column order; the last is compared with each earlier one "+
			"(serial: jobs run inline; perjob: one enqueue and wake per job, then Start; batch: one enqueue and wake for all, "+
			"then Start, which wakes again, as SGen's fix did; startbatch: the batch and Start under one lock, one wake)")
	fs.Var(flagvalue.NewEnum(&o.Config.Backend, def.Backend, workerpool.ParseBackend, workerpool.BackendNames()), "backend",
		"worker backend: native (SGen's pool in C on pthreads; needs a cgo build), threads (Go-locked OS threads "+
			"parked on futexes) or goroutines")
	fs.Var(flagvalue.NewEnum(&o.Config.Mutex, mutexDefault(def), workerpool.ParseMutexKind, workerpool.MutexKindNames()), "mutex",
		"the native backend's pthread mutex: pi (PTHREAD_PRIO_INHERIT, mono's on Linux), normal or adaptive")
	fs.Var(flagvalue.NewEnum(&o.Config.Wake, def.Wake, workerpool.ParseWakePolicy, workerpool.WakePolicyNames()), "wake",
		"wake policy of the pool modes: "+enum.Or(workerpool.WakePolicyNames()))
	fs.Uint64Var(&o.Config.Seed, "seed", def.Seed, "seed of the mutator's random choices (same seed, same heap)")
	fs.Var(flagvalue.NewInt(&o.GOMAXPROCS, base.GOMAXPROCS, 0, gcsim.MaxGOMAXPROCS), "gomaxprocs", "GOMAXPROCS during the run; 0 = auto: workers+1 when --backend is threads or native and "+
		"a pool mode runs, else the runtime's default; the host line gives the value in force "+
		"(why: docs/methodology.md)")
	registerLockCollector(fs, &o.LockCollector, base.LockCollector)
	registerKernelSnapshot(fs, &o.Config.KernelSnapshot, def.KernelSnapshot)
	registerHerdLimit(fs, &o.herdLimit)
	fs.BoolVar(&o.Config.Verify, "verify", def.Verify, "run the heap verifier after every collection (slow; checks, does not time)")
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing on standard error but errors: no start line and no progress "+
		"(which otherwise go there: a bar on a terminal, else a line at most every 10 s)")
	o.output.register(fs)
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE` (go tool pprof FILE)")
	fs.StringVar(&o.trace, "trace", "", "write an event trace of the run to `FILE`: collections (named by mode), jobs per worker, enqueues, wakes "+
		"(not on the native backend, whose workers wake in C: the trace says so; there, each collection's kernel counters) "+
		"(gcbench trace FILE summarizes it, gcbench trace --perfetto OUT.json FILE converts it; tracing adds to the pauses)")
	if done, err := parseOnlyFlags(fs, args, stdout, fmt.Sprintf(runUsage, memoryText(heapMemory(gcsim.DefaultConfig().Heap())))); done {
		return nil, err
	}
	if err := o.validate(fs); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *runOptions) validate(fs *pflag.FlagSet) error {
	if err := checkMutex(fs, o.Config.Backend, &o.Config.Mutex); err != nil {
		return err
	}
	if o.Config.KernelSnapshot && fs.Changed("kernel-snapshot") && o.Config.Backend != workerpool.Native {
		return usagef("--kernel-snapshot: only the native backend's workers are read (this run's backend is %v)", o.Config.Backend)
	}
	if err := checkExperiment(o.Experiment, o.herdLimit, fs); err != nil {
		return err
	}
	if err := o.output.check(fs); err != nil {
		return err
	}
	var inputs []outfile.Path
	if o.config != "" { // the report being rerun is never an output
		inputs = pathsOf("--config", []string{o.config})
	}
	return checkPaths(append(o.output.paths(),
		outfile.Path{Name: "--trace", Path: o.trace}, outfile.Path{Name: "--cpuprofile", Path: o.cpuprofile}), inputs)
}

// checkExperiment refuses, before any work, an experiment gcsim would
// refuse (gcsim.Experiment.Validate: every setting and the pool's
// combination), one whose wake-up herd this machine could not get through
// in reasonable time (CheckHerd, at --herd-limit), or a heap it cannot
// hold, as a usage error naming the flag: run, each point of a sweep, and
// an experiment read with --config alike.
func checkExperiment(e gcsim.Experiment, herdLimit int, fs *pflag.FlagSet) error {
	if err := checkConfig(e.Config, fs); err != nil {
		return err
	}
	if err := e.Validate(); err != nil {
		return settingUsageError(err, fs)
	}
	if err := e.CheckHerd(int64(herdLimit), runtime.NumCPU()); err != nil {
		return usagef("%v: --herd-limit sets that limit (0: none)", settingUsageError(err, fs))
	}
	return nil
}

// checkConfig refuses, before any work, a configuration gcsim would refuse
// or a heap this machine cannot hold (heap's rule, which gcsim.New applies
// again), as a usage error naming the flag.
func checkConfig(c gcsim.Config, fs *pflag.FlagSet) error {
	if err := c.Heap().CheckMemory(heap.AvailableMemory()); err != nil {
		return settingUsageError(err, fs)
	}
	if err := c.Validate(); err != nil {
		return settingUsageError(err, fs)
	}
	return nil
}

// registerHerdLimit adds --herd-limit, shared by run and sweep.
func registerHerdLimit(fs *pflag.FlagSet, limit *int) {
	fs.Var(flagvalue.NewInt(limit, gcsim.DefaultHerdLimit, 0, math.MaxInt), "herd-limit", "most futile wake-ups per CPU "+
		"one collection may cause before the run is refused as one this machine cannot finish or stop in reasonable time "+
		"(--wake broadcast wakes every worker per job: workers × (jobs+1) for perjob); 0: no limit")
}

// checkMutex refuses --mutex for a backend without mutex kinds, and sets the
// mutex of one that has none to gcsim's unused zero.
func checkMutex(fs *pflag.FlagSet, backend workerpool.Backend, m *workerpool.MutexKind) error {
	if backend.HasMutexKinds() {
		return nil
	}
	if fs.Changed("mutex") {
		return usagef("--mutex %v: only the native backend has mutex kinds (this run's backend is %v)", *m, backend)
	}
	*m = workerpool.MutexNormal
	return nil
}

// settingUsageError turns a refused setting (a *setting.Error, whose key
// names the flag by setting.Flag's rule) into a usage error that names the
// flag, with the value as the user typed it; a setting without a flag in
// fs is named by its key.
func settingUsageError(err error, fs *pflag.FlagSet) error {
	var se *setting.Error
	if !errors.As(err, &se) {
		return usagef("%v", err)
	}
	name := setting.Flag(se.Field)
	f := fs.Lookup(name)
	if f == nil {
		return usagef("the configuration's %s = %s: want %s", se.Field, se.Value, se.Want)
	}
	shown := se.Value
	if sv, ok := f.Value.(*flagvalue.Size); ok && sv.Text() != "" {
		shown = sv.Text()
	}
	return usagef("--%s %s: want %s", name, shown, se.Want)
}

// cmdRun is `gcbench run`, also what a bare `gcbench` runs.
func cmdRun(ctx context.Context, e *env, args []string) (err error) {
	o, err := parseRunFlags(ctx, args, e.stdout)
	if o == nil || err != nil {
		return err
	}
	if o.cpuprofile != "" {
		stop, err := startCPUProfile(ctx, o.cpuprofile, e.temps)
		if err != nil {
			return err
		}
		defer func() { err = joinErrors(err, stop()) }()
	}
	defer o.setProcs()() // after the report, whose host records the value in force
	var bar *termprogress.Modes
	var lines *termprogress.Lines
	if !o.quiet {
		bar = termprogress.OnTerminal(e.stderr, o.ModeNames(), o.GCs) // nil, a no-op, off a terminal
		if !termprogress.IsTerminal(e.stderr) {
			fmt.Fprintln(e.stderr, startLine(o.Experiment, termprogress.DefaultEvery))
			lines = termprogress.OffTerminal(e.stderr, "gcbench", o.ModeNames(), o.GCs, termprogress.DefaultEvery)
		}
	}
	facts := map[string]float64{}
	var finishTrace func(keep bool) error
	if o.trace != "" {
		if o.Config.Trace, finishTrace, err = startTrace(ctx, o.trace, e.temps); err != nil {
			return err
		}
	}
	started := time.Now() // as the report records it
	res, err := o.Run(ctx, func(m gcsim.Mode, done, total int) {
		i := slices.Index(o.Modes, m)
		bar.Update(i, done, total)
		lines.Update(i, done, total)
	})
	bar.Finish()
	partial := partialReason(ctx, err, res, o.GCs)
	measured := err == nil || partial != ""
	if finishTrace != nil {
		// A trace of a run that measured something is kept, closed with
		// its end block; one of a run that failed or measured nothing is not.
		err = joinErrors(err, finishTrace(measured))
		maps.Copy(facts, gcsim.TraceFacts(o.Config.Trace.Stats()))
	}
	if !measured {
		return err
	}
	report, rerr := reportOf(o.Experiment, res, gcsim.ReportOptions{Host: host.Probe(), Started: started, Facts: facts, Partial: partial})
	if rerr != nil {
		return joinErrors(err, rerr)
	}
	return joinErrors(err, o.output.write(ctx, e, report))
}

// startLine is what run prints on standard error before it starts off a
// terminal, where no bar shows that it runs: the work (modes, untimed and
// timed collections), the heap and the memory it needs, and how often a
// progress line follows.
func startLine(e gcsim.Experiment, every time.Duration) string {
	h := e.Config.Heap()
	return fmt.Sprintf("gcbench: %d modes (%s) × %d collections (%d untimed, then %d timed), interleaved, on %d workers; "+
		"a %s major heap + %s LOS + %s nursery: needs about %s of memory; progress every %s",
		len(e.Modes), strings.Join(e.ModeNames(), ", "), e.Warmup+e.GCs, e.Warmup, e.GCs, e.Config.Workers,
		bytesize.Format(h.MajorHeap), bytesize.Format(h.LOS), bytesize.Format(h.Nursery), memoryText(heapMemory(h)), every)
}

// heapMemory is the memory a heap of c takes, derived from what heap.New
// reserves and allocates (heap/heap.go, major.go, los.go, nursery.go), not
// measured: its address range (a guard page, the root slots, the nursery,
// the major heap from a block boundary, the LOS), a card table and its
// shadow (a byte per heap.CardSize bytes of that range each), and the
// spaces' metadata on the Go heap (per major block a block record and a
// dirty epoch, per LOS page an object-start index, a bit per nursery
// word). The pages are touched as the run fills the spaces; the marking
// stack (touched as deep as a major collection's marking goes) and the Go
// runtime come on top.
func heapMemory(c heap.Config) int64 {
	roundUp := func(n, to int64) int64 { return (n + to - 1) / to * to }
	roots := roundUp(int64(c.Roots)*heap.SlotSize, heap.PageSize)
	end := roundUp(heap.PageSize+roots+c.Nursery, heap.BlockSize) + c.MajorHeap + c.LOS
	cards := 2 * end / heap.CardSize
	const blockMeta = 24 + 4 // heap's block record (an Addr, 2+2+4+1+1 bytes, padded to 24) and its dirty epoch
	meta := c.MajorHeap/heap.BlockSize*blockMeta + c.LOS/heap.PageSize*4 + c.Nursery/64
	return end + cards + meta
}

// memoryText writes a memory need as a person reads it: GiB to one
// decimal, or whole MiB (rounded up) below 1 GiB.
func memoryText(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", math.Round(float64(b)*10/(1<<30))/10)
	}
	return fmt.Sprintf("%d MiB", (b+1<<20-1)>>20)
}

// reportOf is e's report of res (gcsim.Experiment.Report). If it cannot
// be built, the run's samples are not lost: res is kept as JSON in the
// temporary directory, and the error (an *outfile.KeptError) says where.
func reportOf(e gcsim.Experiment, res *gcsim.Result, o gcsim.ReportOptions) (*report.Report, error) {
	r, err := e.Report(res, o)
	if err == nil {
		return r, nil
	}
	return nil, outfile.KeepAfter(fmt.Errorf("building the report: %w", err), "gcbench", "samples.json",
		func(w io.Writer) error { return json.NewEncoder(w).Encode(res) })
}

// partialReason says why a run that ended with err stopped early, if it
// measured every mode at least once: its report and trace are then kept,
// marked partial, whether a signal stopped it or a failure (a verification
// that found the graph changed, a full heap) did — the collections before
// are the evidence. It is "" for a run that finished or measured nothing.
func partialReason(ctx context.Context, err error, res *gcsim.Result, gcs int) string {
	n := res.RecordedPerMode()
	if err == nil || n == 0 {
		return ""
	}
	cause := err
	if errors.Is(err, context.Canceled) && context.Cause(ctx) != nil {
		cause = context.Cause(ctx)
	}
	return fmt.Sprintf("%v after %d of %d collections per mode", cause, n, gcs)
}

// setProcs sets GOMAXPROCS to the experiment's (gcsim.Experiment.Procs)
// and returns what restores the previous one; a caller defers it past the
// report, whose host records the value in force.
func (o *runOptions) setProcs() (restore func()) {
	prev, n := runtime.GOMAXPROCS(0), o.Procs()
	if n == prev {
		return func() {}
	}
	runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}

// startTrace starts a trace session streaming into an output file for
// path. finish closes the session, which drains every buffer and writes
// the end of the stream, then puts the file in place if keep is true; on
// a failure, or if keep is false, the destination is left as it was.
func startTrace(ctx context.Context, path string, temps *outfile.Set) (s *trace.Session, finish func(keep bool) error, err error) {
	f, err := outfile.CreateContext(ctx, path, temps)
	if err != nil {
		return nil, nil, fmt.Errorf("--trace: %w", err) // names the file
	}
	if s, err = trace.NewSession(f, trace.Options{}); err != nil {
		f.Abort()
		return nil, nil, fmt.Errorf("--trace %s: %w", path, err)
	}
	return s, func(keep bool) error {
		if err := s.Close(); err != nil || !keep {
			f.Abort()
			if err != nil {
				return fmt.Errorf("--trace %s: %w", path, err)
			}
			return nil
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		return nil
	}, nil
}

// startCPUProfile profiles the process into an output file for path; stop
// ends the profile and puts the file in place.
func startCPUProfile(ctx context.Context, path string, temps *outfile.Set) (stop func() error, err error) {
	f, err := outfile.CreateContext(ctx, path, temps)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Commit(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// registerKernelSnapshot adds --kernel-snapshot, shared by run and sweep.
func registerKernelSnapshot(fs *pflag.FlagSet, snap *bool, def bool) {
	fs.BoolVar(snap, "kernel-snapshot", def, "native backend: at each pool collection's gate opening, just before Start wakes "+
		"the workers, read every worker thread's /proc/self/task/TID/stat and syscall files for the *_at_start counters "+
		"(asleep on the mutex or work_cond, runnable on the collector's CPU or elsewhere); the reads fall inside the pause "+
		"and lengthen it, docs/methodology.md gives their measured cost")
}

// registerLockCollector adds --lock-collector, shared by run and sweep.
func registerLockCollector(fs *pflag.FlagSet, lock *bool, def bool) {
	fs.BoolVar(lock, "lock-collector", def, "run the collections on one OS thread, as SGen's collector is one thread "+
		"(runtime.LockOSThread; what it changes: docs/methodology.md)")
}
