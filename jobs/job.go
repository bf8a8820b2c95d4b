// Package jobs defines the unit of work that gcbench's worker pool runs, the
// helpers that split a parallel phase into jobs the way Mono's SGen does
// (mono/mono's mono/sgen/sgen-workers.c and sgen-marksweep.c), and Timed, a
// wrapper that reports when and where each run of a job happened.
//
// A Job receives the index of the worker that runs it, or Inline (-1) when
// the caller runs it on its own goroutine, so that a job can use per-worker
// state (allocation buffers, gray stacks) without any synchronization.
//
// Timed hands its Completion records to the coordinating goroutine through
// a jobs/mpsc queue, each in a node preallocated with its job, so that
// timing a round of jobs allocates nothing.
package jobs

import (
	"fmt"
	"math"
)

// Inline is the worker index passed to a job that runs on the calling
// goroutine rather than on a pool worker (SGen runs jobs inline when a
// collection is not parallel).
const Inline = -1

// Job is a unit of work. Run is called exactly once per dispatch, with the
// index of the worker running it (0 ≤ worker < pool size) or Inline.
type Job interface {
	Run(worker int)
}

// Func adapts an ordinary function to the Job interface.
type Func func(worker int)

// Run calls f(worker).
func (f Func) Run(worker int) { f(worker) }

// SplitCount returns how many jobs of each kind a parallel phase is split
// into for the given number of workers: workers*4, or 1 for a single worker.
// Finer jobs let fast workers absorb uneven load; this is SGen's
// sgen_workers_get_job_split_count. It panics if workers < 1 or workers*4
// would overflow an int, which is a programming error: pool sizes are
// validated where users type them.
func SplitCount(workers int) int {
	if workers < 1 || workers > math.MaxInt/4 {
		panic(fmt.Sprintf("jobs.SplitCount: workers = %d, want 1 to %d", workers, math.MaxInt/4))
	}
	if workers == 1 {
		return 1
	}
	return workers * 4
}

// Range returns the half-open range [lo, hi) of part i when total items are
// split into parts contiguous parts: every part has total/parts items and the
// last part also takes the remainder (SGen's get_block_range_for_job). The
// parts are disjoint and together cover [0, total) exactly once; parts may be
// empty when total < parts.
//
// Range panics, like an out-of-range slice index, if total < 0, parts < 1 or
// i is not in [0, parts): these are programming errors, not user input.
func Range(total, parts, i int) (lo, hi int) {
	switch {
	case total < 0:
		panic(fmt.Sprintf("jobs.Range: total = %d, want ≥ 0", total))
	case parts < 1:
		panic(fmt.Sprintf("jobs.Range: parts = %d, want ≥ 1", parts))
	case i < 0 || i >= parts:
		panic(fmt.Sprintf("jobs.Range: part %d out of range [0, %d)", i, parts))
	}
	n := total / parts
	lo = n * i
	hi = lo + n
	if i == parts-1 {
		hi = total
	}
	return lo, hi
}
