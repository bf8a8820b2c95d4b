// Package modelcheck is the engine of gcbench predict: it compares
// package pausemodel's predictions with measured sweep points of
// workerpool's Native backend, and renders that check and the model's
// many-core predictions as tables of package render. It holds the check's
// statistics (mean absolute error, measurement floor, breakdown by part
// and by regime, futile wake-ups), which points one check may pool, and
// its orchestration (each mutex kind calibrated in turn; job costs
// measured once per heap; the check under each calibration run's costs;
// the many-core predictions side by side) so that the CLI only parses
// flags, reads points and prints.
//
// It exports what the predict command calls, in the order it calls them:
// Poolable (with ErrMixedCollectors, which the command tells apart from a
// point without settings) and Checkable refuse points before the
// calibration's seconds, Calibrate measures a Calibration, and Tables
// makes every table from it. The rest is the engine's own.
package modelcheck

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
	"gonum.org/v1/gonum/stat"
)

// goal is the check's target: the mean absolute error of the predicted
// perjob − batch difference, as a share (%) of the mean measured
// difference, at most goal plus the measurement floor.
const goal = 20.0

// futileTolerance is the futile wake-ups' target: a prediction within
// this share (%) of the measured mean, or within the measured run-to-run
// range, whichever is wider.
const futileTolerance = 30.0

// A sweepPoint is a sweep point's configuration as the model reads it.
type sweepPoint struct {
	Config  gcsim.Config
	Backend string // native, threads or goroutines
	Mutex   workerpool.MutexKind
	// LockCollector is the experiment's: whether the collections ran on
	// one locked OS thread, which measures another system (Poolable).
	LockCollector bool
}

// readPoint reads a sweep point's configuration from its typed settings
// (gcsim.ReadExperiment); ok is false for points the check does not
// cover: no perjob or no batch, a wake policy other than broadcast, a
// mutex kind the model lacks, settings it cannot read (among them a
// version-1 report's, which has none).
func readPoint(r *report.Report) (sweepPoint, bool) {
	e, err := gcsim.ReadExperiment(r)
	if err != nil {
		return sweepPoint{}, false
	}
	p := sweepPoint{Config: e.Config, Backend: e.Config.Backend.String(), LockCollector: e.LockCollector}
	if !slices.Contains(e.Modes, gcsim.PerJob) || !slices.Contains(e.Modes, gcsim.Batch) || e.Config.Wake != workerpool.Broadcast {
		return p, false
	}
	if e.Config.Backend.HasMutexKinds() {
		if !slices.Contains(pausemodel.MutexKinds(), e.Config.Mutex) {
			return p, false
		}
		p.Mutex = e.Config.Mutex
	}
	return p, true
}

// A validation is one native sweep point checked: measured and predicted
// mean pauses (µs) of perjob and batch.
type validation struct {
	sweepPoint
	Host            string // the machine that measured it (report.Host.Label)
	Cores           int
	MeasuredPerJob  float64
	MeasuredBatch   float64
	PredictedPerJob float64
	PredictedBatch  float64
	MeasuredFutile  float64 // per perjob collection
	PredictedFutile int
	// MeasuredParts and PredictedParts are the perjob − batch difference
	// (µs) of each of pauseParts; a measured one is NaN where the point has no
	// anatomy.
	MeasuredParts, PredictedParts [len(pauseParts)]float64
	// PredictedWorkerTimes are the model's workers' CPU and wait for a CPU
	// per collection (µs; pausemodel.Result's WorkerCPU and WorkerWait),
	// perjob's then batch's, beside the measured worker_cpu_us and
	// worker_wait_us among PerJobMeans and BatchMeans.
	PredictedWorkerTimes [2]workerTimes
	// PredictedBatchWaitAtTick is the model's batch workers' wait (µs)
	// with pausemodel.BalanceAtTick, where an idle core leaves a queued
	// worker until the tick.
	PredictedBatchWaitAtTick float64

	// Jobs is a collection's job count (the jobs counter, else
	// gcsim.JobCount); PerJobMeans and BatchMeans the modes' counter
	// means; PredictedBroadcasts the model's perjob broadcasts (check 1).
	Jobs                    int
	PerJobMeans, BatchMeans map[string]float64
	PredictedBroadcasts     int
	// Observed says the run recorded the kernel's observables, and
	// ObservedFutile is the model's perjob futile wake-ups with them fed
	// in (check 2).
	Observed       bool
	ObservedFutile int
	// PerJobLow, PerJobHigh, BatchLow and BatchHigh are check 3's
	// envelopes (µs): the lowest and highest of the model's mean pauses
	// over envelopeKernels.
	PerJobLow, PerJobHigh, BatchLow, BatchHigh float64
	// PerJobSE and BatchSE are the measured mean pauses' standard errors
	// (µs). Referenced says the prediction's job costs are the run's own
	// serial collections' (reference). PredictionRelSE is the relative
	// standard error the prediction inherits from what priced its jobs:
	// the serial mean's (when Referenced) and the slowdown's (on more than
	// one core), combined.
	PerJobSE, BatchSE float64
	Referenced        bool
	PredictionRelSE   float64
}

// pauseParts are the parts of the pause the model simulates, as the anatomy
// names them; they add up to its dispatch.
var pauseParts = [...]struct {
	Key, Label string
	Of         func(pausemodel.Result) time.Duration
}{
	{gcsim.CounterToFirstJob.String(), "to the first job", func(r pausemodel.Result) time.Duration { return r.ToFirstJob }},
	{gcsim.CounterJobSpan.String(), "job span", func(r pausemodel.Result) time.Duration { return r.JobSpan }},
	{gcsim.CounterJoinLatency.String(), "join", func(r pausemodel.Result) time.Duration { return r.JoinLatency }},
}

// measuredDiff and predictedDiff are perjob − batch (µs).
func (v validation) measuredDiff() float64  { return v.MeasuredPerJob - v.MeasuredBatch }
func (v validation) predictedDiff() float64 { return v.PredictedPerJob - v.PredictedBatch }

// workers is the point's worker count.
func (v validation) workers() int { return v.Config.Workers }

// workOf measures (or recalls) the job costs of a heap.
type workOf func(gcsim.Config) (pausemodel.Work, error)

// slowdownOf measures (or recalls) how much slower a heap's jobs run on
// that many of the pool's workers at once (pausemodel.MeasureSlowdown).
type slowdownOf func(cfg gcsim.Config, concurrency int) (Slowdown, error)

// A Slowdown is the factor a heap's jobs take on k of the pool's workers
// (F, the median of the runs that measured it) and its relative standard
// error over those runs (RelSE): the 2-core VM's CPUs change speed from
// one moment to the next (docs/predict.md, "The host's speed"), so a
// factor measured now is uncertain for a point swept minutes before, by
// as much as runs minutes apart disagree.
type Slowdown struct{ F, RelSE float64 }

// SlowdownOf is the Slowdown of runs, each run's factor.
func SlowdownOf(runs []float64) Slowdown {
	if len(runs) == 0 {
		return Slowdown{F: 1}
	}
	f := slices.Clone(runs)
	slices.Sort(f)
	s := Slowdown{F: f[len(f)/2]}
	if len(f) > 1 {
		s.RelSE = stat.StdDev(f, nil) / math.Sqrt(float64(len(f))) / stat.Mean(f, nil)
	}
	return s
}

// Measure holds what Tables measures of a heap's jobs, on this host:
// Work, their serial costs (pausemodel.MeasureWork), and Slowdown, the
// factor they take on k of the pool's worker threads (pausemodel.MeasureSlowdown),
// which a point on more than one core applies at k = its workers; nil
// Slowdown is a factor of 1.
type Measure struct {
	Work     func(gcsim.Config) (pausemodel.Work, error)
	Slowdown func(cfg gcsim.Config, concurrency int) (Slowdown, error)
}

// memoSlowdown is memo for slowdowns: each heap and concurrency once.
func memoSlowdown(measure slowdownOf) slowdownOf {
	if measure == nil {
		return nil
	}
	got := map[string]Slowdown{}
	return func(cfg gcsim.Config, k int) (Slowdown, error) {
		key := fmt.Sprint(heapKey(cfg), "/", k)
		if f, ok := got[key]; ok {
			return f, nil
		}
		f, err := measure(cfg, k)
		if err == nil {
			got[key] = f
		}
		return f, err
	}
}

// onWorkers is w as its jobs cost at a point on cores: on one core they
// run one at a time, as MeasureWork measured them; on more, spread over
// the point's worker threads, up to cores of them at once, each slower by
// the factor measured on that many threads. The factor is taken at the
// workers, not at min(workers, cores): on the 2-core VM it read 1.09–1.19
// at 2 workers and 1.26–1.38 at 32 (docs/predict.md, "The slowdown at the
// point's workers"), the rotation among more threads than CPUs costing
// each job more. relSE is the factor's relative standard error, which the
// prediction inherits.
func onWorkers(w pausemodel.Work, slow slowdownOf, cfg gcsim.Config, cores int) (_ pausemodel.Work, relSE float64, _ error) {
	if slow == nil || cores < 2 {
		return w, 0, nil
	}
	f, err := slow(cfg, cfg.Workers)
	if err != nil {
		return pausemodel.Work{}, 0, err
	}
	return w.Scaled(f.F), f.RelSE, nil
}

// memo returns a workOf that calls measure once per heap (its sizes and
// seed, the settings job costs depend on) and recalls a success after:
// measuring a heap's job costs takes serial collections, and every point
// of a heap, in every calibration run's check, shares them.
func memo(measure workOf) workOf {
	works := map[string]pausemodel.Work{}
	return func(cfg gcsim.Config) (pausemodel.Work, error) {
		key := heapKey(cfg)
		if w, ok := works[key]; ok {
			return w, nil
		}
		w, err := measure(cfg)
		if err == nil {
			works[key] = w
		}
		return w, err
	}
}

// heapKey names the heap whose job costs cfg's collections scan.
func heapKey(cfg gcsim.Config) string {
	return fmt.Sprint(cfg.MajorHeap, cfg.LOS, cfg.Nursery, cfg.Seed)
}

// Checkable reports whether r is a native point with runs the model can
// be checked against; a command asks before calibrating, which takes
// seconds.
func Checkable(r *report.Report) bool {
	p, ok := readPoint(r)
	return ok && p.Backend == "native" && len(r.Runs) > 0
}

// ErrMixedCollectors is Poolable's error for points made with and
// without gcsim.Experiment.LockCollector.
var ErrMixedCollectors = errors.New("one check would pool two measured systems")

// Poolable returns nil if one check can pool reports, sweep points each
// named by its Source (report.ReadFile sets it). It refuses a point saved
// without typed settings, which the check cannot read (an error wrapping
// gcsim.ErrNoSettings), and points made with and without LockCollector
// together (an error wrapping ErrMixedCollectors). A point whose settings
// do not read for another reason is left to the check, which leaves it
// out.
func Poolable(reports []*report.Report) error {
	first, locked := -1, false
	for i, r := range reports {
		e, err := gcsim.ReadExperiment(r)
		switch {
		case errors.Is(err, gcsim.ErrNoSettings):
			return fmt.Errorf("%s: %w", r.Source, err)
		case err != nil:
		case first < 0:
			first, locked = i, e.LockCollector
		case e.LockCollector != locked:
			return fmt.Errorf("%s was made with %s=%v, %s with %v: %w", reports[first].Source, gcsim.KeyLockCollector, locked,
				r.Source, e.LockCollector, ErrMixedCollectors)
		}
	}
	return nil
}

// validatePoints predicts every native point of reports with costs[its mutex
// kind] and the job costs work gives for its heap. Points of other
// backends, and those the check does not cover, are left out.
func validatePoints(costs map[workerpool.MutexKind]pausemodel.Costs, reports []*report.Report, work workOf, slow slowdownOf) ([]validation, error) {
	var out []validation
	pr := predictor{}
	for _, r := range reports {
		p, ok := readPoint(r)
		if !ok || p.Backend != "native" {
			continue
		}
		c, ok := costs[p.Mutex]
		if !ok {
			continue
		}
		w, err := work(p.Config)
		if err != nil {
			return nil, fmt.Errorf("%s: measuring its heap's job costs: %w", r.Source, err)
		}
		for _, run := range r.Runs {
			ref, referenced := referenceOf(run)
			wr := w
			if referenced {
				wr = ref.at(w)
			}
			wr, slowRelSE, err := onWorkers(wr, slow, p.Config, run.Host.Cores)
			if err != nil {
				return nil, fmt.Errorf("%s: measuring its jobs' cost on the pool's workers: %w", r.Source, err)
			}
			v, ok, err := pr.validate(p, run, c, wr)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Source, err)
			}
			if ok {
				v.Referenced, v.PredictionRelSE = referenced, math.Hypot(ref.RelSE, slowRelSE)
				out = append(out, v)
			}
		}
	}
	sortValidations(out)
	return out, nil
}

// A predictor predicts points' collections, each distinct one once:
// repeats of a point on one host have the same prediction.
type predictor map[string]prediction

type prediction struct {
	pause time.Duration
	res   pausemodel.Result
}

// predict is pausemodel.PredictKernel of p's collection at cores in
// mode, with the kernel k.
func (pr predictor) predict(c pausemodel.Costs, w pausemodel.Work, p sweepPoint, cores int, mode gcsim.Mode, k pausemodel.Kernel) (prediction, error) {
	// A heap's works differ by a scale (a run's reference) and the work
	// outside dispatch, so its serial sum and that part tell them apart.
	key := fmt.Sprint(c, c.WakeToRunDist, heapKey(p.Config), w.Serial(), w.Outside, cores, p.Config.Workers, mode, p.Mutex, k)
	if got, ok := pr[key]; ok {
		return got, nil
	}
	pause, res, err := pausemodel.PredictKernel(c, w, pausemodel.Shape{Cores: cores, Workers: p.Config.Workers, Mode: mode, Mutex: p.Mutex, Kernel: k})
	if err == nil {
		pr[key] = prediction{pause, res}
	}
	return prediction{pause, res}, err
}

// validate sets run, one measurement of point p, beside its prediction
// with costs c and job costs w; ok is false for a run the check cannot
// use (without perjob or batch, or on an implausible core count).
func (pr predictor) validate(p sweepPoint, run report.Run, c pausemodel.Costs, w pausemodel.Work) (v validation, ok bool, err error) {
	per, batch := run.Mode("perjob"), run.Mode("batch")
	if per == nil || batch == nil || run.Host.Cores < 1 || run.Host.Cores > 4096 {
		return validation{}, false, nil
	}
	var preds [2]prediction // perjob, batch: the model's own kernel rules
	for i, mode := range []gcsim.Mode{gcsim.PerJob, gcsim.Batch} {
		if preds[i], err = pr.predict(c, w, p, run.Host.Cores, mode, pausemodel.Kernel{}); err != nil {
			return validation{}, false, err
		}
	}
	env, err := pr.envelopes(c, w, p, run.Host.Cores)
	if err != nil {
		return validation{}, false, err
	}
	predPer, predBatch := preds[0], preds[1]
	v = validation{sweepPoint: p, Host: run.Host.Label(), Cores: run.Host.Cores,
		MeasuredPerJob: per.Summary.Mean, MeasuredBatch: batch.Summary.Mean, MeasuredFutile: per.CounterMeans[gcsim.CounterFutileWakeups.String()],
		PredictedPerJob: micros(predPer.pause), PredictedBatch: micros(predBatch.pause), PredictedFutile: predPer.res.FutileWakeups,
		PerJobMeans: per.CounterMeans, BatchMeans: batch.CounterMeans, PredictedBroadcasts: predPer.res.Broadcasts,
		PerJobLow: env[0][0], PerJobHigh: env[0][1], BatchLow: env[1][0], BatchHigh: env[1][1], Jobs: gcsim.JobCount(p.Config.Workers),
		PerJobSE: stats.StandardError(per.Pauses), BatchSE: stats.StandardError(batch.Pauses)}
	if j, ok := per.CounterMeans[gcsim.CounterJobs.String()]; ok && j >= 1 {
		v.Jobs = int(math.Round(j))
	}
	if k, ok := kernelOf(per.CounterMeans, p.Config.Workers); ok {
		obs, err := pr.predict(c, w, p, run.Host.Cores, gcsim.PerJob, k)
		if err != nil {
			return validation{}, false, err
		}
		v.Observed, v.ObservedFutile = true, obs.res.FutileWakeups
	}
	for i, r := range []pausemodel.Result{predPer.res, predBatch.res} {
		v.PredictedWorkerTimes[i] = workerTimes{CPU: micros(r.WorkerCPU), Wait: micros(r.WorkerWait)}
	}
	atTick, err := pr.predict(c, w, p, run.Host.Cores, gcsim.Batch, pausemodel.Kernel{Balance: pausemodel.BalanceAtTick})
	if err != nil {
		return validation{}, false, err
	}
	v.PredictedBatchWaitAtTick = micros(atTick.res.WorkerWait)
	for i, part := range pauseParts {
		v.MeasuredParts[i] = math.NaN()
		a, okA := per.CounterMeans[part.Key]
		b, okB := batch.CounterMeans[part.Key]
		if okA && okB {
			v.MeasuredParts[i] = a - b
		}
		v.PredictedParts[i] = micros(part.Of(predPer.res)) - micros(part.Of(predBatch.res))
	}
	return v, true, nil
}

// envelopeKernels are the corners of check 3's envelope: each extreme of
// the three choices the model cannot predict for a collection, whether a
// woken worker preempts the collector (never, or on every wake), when an
// idle core takes a thread queued on another (at once, or at the next
// tick: pausemodel.Balance), and what the Go runtime takes (nothing, or
// sysmon's looks at its shortest sleep: pausemodel.Kernel.Sysmon).
var envelopeKernels = [...]pausemodel.Kernel{
	{Preemption: pausemodel.PreemptNever}, {Preemption: pausemodel.PreemptEveryWake},
	{Preemption: pausemodel.PreemptNever, Balance: pausemodel.BalanceAtTick},
	{Preemption: pausemodel.PreemptEveryWake, Balance: pausemodel.BalanceAtTick},
	{Preemption: pausemodel.PreemptNever, Sysmon: true}, {Preemption: pausemodel.PreemptEveryWake, Sysmon: true},
	{Preemption: pausemodel.PreemptNever, Balance: pausemodel.BalanceAtTick, Sysmon: true},
	{Preemption: pausemodel.PreemptEveryWake, Balance: pausemodel.BalanceAtTick, Sysmon: true},
}

// envelopes is check 3's envelope of p's perjob and batch mean pauses at
// cores (µs): the lowest and the highest of the model's pauses over
// envelopeKernels. Neither choice moves a pause one way only (a tick's
// delay can spare a herd), so the bounds are the corners' extremes.
func (pr predictor) envelopes(c pausemodel.Costs, w pausemodel.Work, p sweepPoint, cores int) (env [2][2]float64, err error) {
	for i, mode := range []gcsim.Mode{gcsim.PerJob, gcsim.Batch} {
		env[i] = [2]float64{math.Inf(1), math.Inf(-1)}
		for _, k := range envelopeKernels {
			got, err := pr.predict(c, w, p, cores, mode, k)
			if err != nil {
				return env, err
			}
			env[i][0], env[i][1] = math.Min(env[i][0], micros(got.pause)), math.Max(env[i][1], micros(got.pause))
		}
	}
	return env, nil
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// workerTimes are a collection's workers' CPU and wait for a CPU (µs).
type workerTimes struct{ CPU, Wait float64 }

// measuredWorkerTimes are the means of a mode's worker_cpu_us and
// worker_wait_us, and false where the run did not count them.
func measuredWorkerTimes(means map[string]float64) (workerTimes, bool) {
	cpu, okC := means[gcsim.CounterWorkerCPU.String()]
	wait, okW := means[gcsim.CounterWorkerWait.String()]
	return workerTimes{CPU: cpu, Wait: wait}, okC && okW
}

// sortValidations orders validations as a reader compares them: by cores, most
// first, then mutex kind, then workers.
func sortValidations(vals []validation) {
	slices.SortStableFunc(vals, func(a, b validation) int {
		return cmp.Or(cmp.Compare(b.Cores, a.Cores), cmp.Compare(a.Mutex, b.Mutex), cmp.Compare(a.workers(), b.workers()))
	})
}

// where is the validations keep accepts, in a new slice.
func where(vals []validation, keep func(validation) bool) []validation {
	return slices.DeleteFunc(slices.Clone(vals), func(v validation) bool { return !keep(v) })
}

// meanAbsError is the mean absolute error of the predicted perjob − batch
// differences (µs) and that error as a percentage of the mean absolute
// measured difference.
func meanAbsError(vals []validation) (mae, rel float64) {
	if len(vals) == 0 {
		return 0, 0
	}
	var absErr, absDiff float64
	for _, v := range vals {
		absErr += math.Abs(v.predictedDiff() - v.measuredDiff())
		absDiff += math.Abs(v.measuredDiff())
	}
	return absErr / float64(len(vals)), 100 * absErr / math.Max(absDiff, 1e-9)
}

// pointKey is what makes two validations the same point measured twice:
// its whole configuration, the collector's thread and the machine —
// everything but when it ran and for how many collections.
type pointKey struct {
	host          string
	cores         int
	config        gcsim.Config
	lockCollector bool
}

func key(v validation) pointKey {
	c := v.Config
	c.Trace = nil // no setting: the session a run wrote to
	return pointKey{v.Host, v.Cores, c, v.LockCollector}
}

// floor is the measurement floor: the error, in meanAbsError's terms, that
// a model predicting every point's mean difference exactly would show
// against the sweeps given — each repeated point's measured differences
// against their own mean, over the points measured more than once (Points
// of them; Replicas their measurements).
type floor struct {
	Points, Replicas int
	MAE, Rel         float64
}

// measurementFloor computes the floor of vals.
func measurementFloor(vals []validation) floor {
	groups := map[pointKey][]float64{}
	for _, v := range vals {
		groups[key(v)] = append(groups[key(v)], v.measuredDiff())
	}
	var f floor
	var absDev, absDiff float64
	for _, diffs := range groups {
		if len(diffs) < 2 {
			continue
		}
		f.Points++
		f.Replicas += len(diffs)
		mean := meanOf(diffs)
		for _, d := range diffs {
			absDev += math.Abs(d - mean)
			absDiff += math.Abs(d)
		}
	}
	if f.Replicas == 0 {
		return floor{}
	}
	f.MAE, f.Rel = absDev/float64(f.Replicas), 100*absDev/math.Max(absDiff, 1e-9)
	return f
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x / float64(len(xs))
	}
	return s
}

// verdict is the check's outcome on vals: its relative error, the floor,
// and whether the error is within goal plus the floor.
type verdict struct {
	MAE, Rel float64
	Floor    floor
	Met      bool
}

// judge computes the verdict of vals.
func judge(vals []validation) verdict {
	mae, rel := meanAbsError(vals)
	f := measurementFloor(vals)
	return verdict{MAE: mae, Rel: rel, Floor: f, Met: rel <= goal+f.Rel}
}

// futileOK reports whether v's predicted futile wake-ups are within
// futileTolerance of the measured mean or within [lo, hi], the measured
// range over the point's repeats.
func futileOK(predicted int, measured, lo, hi float64) bool {
	p := float64(predicted)
	return math.Abs(p-measured) <= futileTolerance/100*measured || (p >= lo && p <= hi)
}

// futileRanges is, for each point key, the lowest and highest measured
// futile wake-ups over its repeats.
func futileRanges(vals []validation) map[pointKey][2]float64 {
	r := map[pointKey][2]float64{}
	for _, v := range vals {
		k := key(v)
		if old, ok := r[k]; ok {
			r[k] = [2]float64{math.Min(old[0], v.MeasuredFutile), math.Max(old[1], v.MeasuredFutile)}
		} else {
			r[k] = [2]float64{v.MeasuredFutile, v.MeasuredFutile}
		}
	}
	return r
}

// futileHits counts the validations whose futile wake-ups meet their
// target.
func futileHits(vals []validation) (ok, all int) {
	ranges := futileRanges(vals)
	for _, v := range vals {
		r := ranges[key(v)]
		if futileOK(v.PredictedFutile, v.MeasuredFutile, r[0], r[1]) {
			ok++
		}
	}
	return ok, len(vals)
}

// coreCounts lists the validations' core counts, most first.
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

// workerCounts lists the validations' worker counts, fewest first.
func workerCounts(vals []validation) []int {
	var ws []int
	for _, v := range vals {
		if !slices.Contains(ws, v.workers()) {
			ws = append(ws, v.workers())
		}
	}
	slices.Sort(ws)
	return ws
}

// mutexKinds lists the validations' mutex kinds, in order.
func mutexKinds(vals []validation) []workerpool.MutexKind {
	var ks []workerpool.MutexKind
	for _, v := range vals {
		if !slices.Contains(ks, v.Mutex) {
			ks = append(ks, v.Mutex)
		}
	}
	slices.Sort(ks)
	return ks
}

// errorBreakdown gives the relative error of each core count and, within
// it, of each mutex kind: the model may hold in one regime and not
// another, and one pooled figure hides which.
func errorBreakdown(vals []validation) string {
	cores, kinds := coreCounts(vals), mutexKinds(vals)
	if len(cores) < 2 && len(kinds) < 2 {
		return ""
	}
	rel := func(keep func(validation) bool) float64 {
		_, r := meanAbsError(where(vals, keep))
		return r
	}
	var parts []string
	for _, c := range cores {
		part := fmt.Sprintf("%s %.0f%%", coresLabel(c), rel(func(v validation) bool { return v.Cores == c }))
		var byKind []string
		for _, k := range kinds {
			if slices.ContainsFunc(vals, func(v validation) bool { return v.Cores == c && v.Mutex == k }) {
				byKind = append(byKind, fmt.Sprintf("%v %.0f%%", k, rel(func(v validation) bool { return v.Cores == c && v.Mutex == k })))
			}
		}
		if len(kinds) > 1 {
			part += " (" + strings.Join(byKind, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return "The same per core count and mutex kind: " + strings.Join(parts, "; ") + "."
}

// coresLabel is "1 core", "2 cores", ...
func coresLabel(c int) string {
	if c == 1 {
		return "1 core"
	}
	return strconv.Itoa(c) + " cores"
}
