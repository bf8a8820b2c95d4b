package pausemodel

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// Work is what one minor collection of a heap costs when run serially: the
// roots job, the major-heap and large-object-space scans as cumulative
// cost curves over their ranges, and the parts of the pause outside
// dispatch (card preparation and nursery reset), the same in every mode.
type Work struct {
	Roots time.Duration `json:"roots"`
	// Major[i] and LOS[i] are the cost of the first i of len−1 equal
	// parts of each range (Major[0] = 0), as measured; Jobs re-splits them.
	Major   []time.Duration `json:"major"`
	LOS     []time.Duration `json:"los"`
	Outside time.Duration   `json:"outside"`
	// Each holds every measured collection's own Roots, Major and LOS, in
	// the order measured; the fields above are their means.
	Each []Work `json:"each,omitempty"`
}

// calibrationWorkers is the split the serial collections measure: fine
// enough that re-splitting it for up to 64 workers stays close to the
// heap's own unevenness.
const calibrationWorkers = 32

// MeasureWork runs serial collections of cfg's heap (its Workers setting
// is replaced by calibrationWorkers, which only sets the split) and keeps
// each one's job costs (Each) and their mean: the serial cost per job,
// measured where no dispatch is involved.
func MeasureWork(ctx context.Context, cfg gcsim.Config, collections int) (Work, error) {
	cfg.Workers, cfg.Verify, cfg.Trace = calibrationWorkers, false, nil
	s, err := gcsim.NewContext(ctx, cfg)
	if err != nil {
		return Work{}, err
	}
	defer s.Close()
	parts := jobs.SplitCount(calibrationWorkers)
	sum := make([]time.Duration, 1+2*parts)
	var each []Work
	var outside time.Duration
	for range collections {
		if err := s.MutateContext(ctx); err != nil {
			return Work{}, err
		}
		r, err := s.CollectContext(ctx, gcsim.Serial)
		if err != nil {
			return Work{}, err
		}
		outside += r.CardPrep + r.NurseryReset
		one := make([]time.Duration, 1+2*parts)
		for _, c := range s.Completions() {
			sum[c.JobIndex] += c.Duration()
			one[c.JobIndex] += c.Duration()
		}
		each = append(each, Work{Roots: one[0], Major: cumulative(one[1:1+parts], 1), LOS: cumulative(one[1+parts:], 1)})
	}
	n := time.Duration(max(1, collections))
	w := Work{Roots: sum[0] / n, Outside: outside / n, Major: cumulative(sum[1:1+parts], n), LOS: cumulative(sum[1+parts:], n), Each: each}
	return w, nil
}

func cumulative(costs []time.Duration, n time.Duration) []time.Duration {
	out := make([]time.Duration, len(costs)+1)
	for i, c := range costs {
		out[i+1] = out[i] + c/n
	}
	return out
}

// Jobs splits the work as gcsim splits a collection for workers: one roots
// job, then jobs.SplitCount(workers) major-heap and as many LOS jobs, each
// covering an equal share of its range, costed from the curves.
func (w Work) Jobs(workers int) []time.Duration {
	parts := jobs.SplitCount(workers)
	out := []time.Duration{w.Roots}
	for _, curve := range [][]time.Duration{w.Major, w.LOS} {
		for i := range parts {
			out = append(out, at(curve, float64(i+1)/float64(parts))-at(curve, float64(i)/float64(parts)))
		}
	}
	return out
}

// Serial is the whole serial cost of the jobs.
func (w Work) Serial() time.Duration {
	return w.Roots + w.Major[len(w.Major)-1] + w.LOS[len(w.LOS)-1]
}

// at reads a cumulative curve at fraction f of its range, linearly
// between its points.
func at(curve []time.Duration, f float64) time.Duration {
	x := f * float64(len(curve)-1)
	i := sort.Search(len(curve)-1, func(i int) bool { return float64(i+1) > x })
	if i >= len(curve)-1 {
		return curve[len(curve)-1]
	}
	frac := x - float64(i)
	return curve[i] + time.Duration(frac*float64(curve[i+1]-curve[i]))
}

// Predict is the model's mean pause for a collection of w's heap: the
// parts outside dispatch plus the mean simulated dispatch of one
// collection per element of w.Each, each with its own jobs
// (SimulateSeries), or of one collection of the mean jobs if w.Each is
// empty. The Result is that series' mean.
func Predict(c Costs, w Work, cores, workers int, mode gcsim.Mode, mutex workerpool.MutexKind) (time.Duration, Result, error) {
	return PredictKernel(c, w, Shape{Cores: cores, Workers: workers, Mode: mode, Mutex: mutex})
}

// PredictKernel is Predict of shape s, whose Kernel says what the kernel
// did (s.Jobs is ignored: the jobs are w's).
func PredictKernel(c Costs, w Work, s Shape) (time.Duration, Result, error) {
	cores, workers, mode, mutex := s.Cores, s.Workers, s.Mode, s.Mutex
	for _, e := range append([]Work{w}, w.Each...) {
		if len(e.Major) == 0 || len(e.LOS) == 0 {
			return 0, Result{}, fmt.Errorf("%w: job costs without curves (Major %d, LOS %d points)", ErrShape, len(e.Major), len(e.LOS))
		}
	}
	var series [][]time.Duration
	for _, e := range w.Each {
		series = append(series, e.Jobs(workers))
	}
	if len(series) == 0 {
		series = append(series, w.Jobs(workers))
	}
	r, err := SimulateSeries(c, s, series)
	if err != nil {
		return 0, r, fmt.Errorf("predicting %v with a %v mutex on %d cores, %d workers: %w", mode, mutex, cores, workers, err)
	}
	return w.Outside + r.Dispatch, r, nil
}

// Scaled is w with every job's cost, its Each's included, multiplied by
// f; Outside, the collector's own work, is kept.
func (w Work) Scaled(f float64) Work {
	scale := func(ds []time.Duration) []time.Duration {
		out := make([]time.Duration, len(ds))
		for i, d := range ds {
			out[i] = time.Duration(float64(d) * f)
		}
		return out
	}
	out := Work{Roots: time.Duration(float64(w.Roots) * f), Major: scale(w.Major), LOS: scale(w.LOS), Outside: w.Outside}
	for _, e := range w.Each {
		out.Each = append(out.Each, e.Scaled(f))
	}
	return out
}

// MeasureSlowdown measures how much slower cfg's heap's jobs run on
// concurrency of the native pool's worker threads at once than inline on
// the collector: one interleaved comparison of Serial and Batch
// collections at Workers = concurrency (the normal mutex; the jobs' own
// cost does not depend on it), each collection's summed job durations
// (Record.JobMean × Record.Jobs), Batch's mean over Serial's. It is a
// calibration of the jobs, not of the pauses the model is checked
// against: a job's duration is its own start to end on its worker, which
// the dispatch around it does not enter. At concurrency up to the CPUs,
// it measures what caches shared with other running jobs, and a worker
// thread's caches that the collector did not warm, cost each job; above
// them, also what the jobs' rotation among more threads than CPUs costs
// each. A job's duration also holds any wait for a CPU in its middle: in
// native-normal-8w's median run (docs/results), 8 workers on 2 CPUs with
// the normal mutex, a batch collection's 65 jobs saw 4.5 preemptions of a
// worker; more workers than that were not counted.
func MeasureSlowdown(ctx context.Context, cfg gcsim.Config, concurrency, collections int) (float64, error) {
	if concurrency < 1 || collections < 1 {
		return 0, fmt.Errorf("%w: slowdown at %d workers over %d collections", ErrShape, concurrency, collections)
	}
	cfg.Workers, cfg.Backend, cfg.Mutex, cfg.Wake = concurrency, workerpool.Native, workerpool.MutexNormal, workerpool.Broadcast
	cfg.Verify, cfg.Trace, cfg.KernelSnapshot = false, nil, false
	res, err := gcsim.Compare(ctx, cfg, gcsim.CompareOptions{Modes: []gcsim.Mode{gcsim.Serial, gcsim.Batch}, GCs: collections, Warmup: 2})
	if err != nil {
		return 0, fmt.Errorf("measuring the jobs' cost on %d workers: %w", concurrency, err)
	}
	var sums [2]float64
	for i, m := range res.Modes {
		for _, r := range m.Records {
			sums[i] += float64(r.JobMean) * float64(r.Jobs)
		}
		sums[i] /= float64(max(1, len(m.Records)))
	}
	if sums[0] <= 0 || sums[1] <= 0 {
		return 0, fmt.Errorf("%w: no job ran while measuring the slowdown at %d workers", ErrShape, concurrency)
	}
	return sums[1] / sums[0], nil
}
