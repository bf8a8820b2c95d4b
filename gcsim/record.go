package gcsim

import (
	"time"

	"github.com/gcbench/gcbench/workerpool"
)

// Record describes one timed minor collection.
type Record struct {
	Mode Mode
	// Pause is the whole stop-the-world time: CardPrep + Dispatch + Join +
	// NurseryReset. CardPrep copies and clears the cards; Dispatch is the
	// enqueue calls and Start (0 for Serial); Join is waiting for the jobs
	// (for Serial: running them inline); NurseryReset returns the promotion
	// blocks and empties the nursery.
	Pause, CardPrep, Dispatch, Join, NurseryReset time.Duration
	// The pause's anatomy, a second split of the same interval:
	// CardPrep + ToFirstJob + JobSpan + JoinLatency + NurseryReset = Pause.
	// ToFirstJob runs from the end of card preparation to the first job's
	// start on a worker (enqueues, wakes, Start, the wake-to-run latency),
	// JobSpan from there to the last job's end, and JoinLatency from there
	// to the collector's return from Join (noticing the end, waking it).
	ToFirstJob, JobSpan, JoinLatency time.Duration
	// Jobs is the number of jobs (JobCount(workers)); DirtyCards
	// the marked cards they scanned.
	Jobs, DirtyCards int
	// JobMean and JobMax are the mean and the longest duration of one job
	// of this collection, from the per-job completion records (Completions).
	JobMean, JobMax time.Duration
	// JobWorkers is how many workers ran at least one job (1 for Serial).
	JobWorkers int
	// Imbalance is the load imbalance among JobWorkers: the busiest
	// worker's busy time (the sum of its jobs' durations) divided by the
	// mean busy time of the workers that ran jobs. 1.0 is an even split
	// among those workers, however few: one worker that ran every job also
	// gives 1.0, so read it with JobWorkers. It is 1 for Serial.
	Imbalance float64
	// PromotedObjects and PromotedBytes count the survivors copied to the major heap.
	PromotedObjects, PromotedBytes int64
	// Pool holds the pool's counters for this collection (zero for Serial),
	// from the pause's start until Join returned. A worker the collection
	// woke that runs only after the collector resumes (waiting for a CPU,
	// or for a P when GOMAXPROCS is below workers+1) counts its wake-up,
	// futile or not, and its futex calls after that, in the mutator phase:
	// in no Record, or, if it is still running then, in the next one's.
	Pool workerpool.Stats
	// CollectorPreemptions is the collector thread's involuntary context
	// switches during Dispatch: getrusage(2) RUSAGE_THREAD's ru_nivcsw
	// read just before and just after it. CollectContext runs a pool
	// mode's pause on the Native backend on a locked OS thread (nested in
	// Experiment.LockCollector's lock, if set), so that both reads are of
	// one thread. CollectorPreemptionsCounted is false where it was not
	// counted: Serial, another backend, not Linux, or getrusage failed.
	CollectorPreemptions        uint64
	CollectorPreemptionsCounted bool
	// WorkerPreemptions and WorkerSleeps are the worker threads' context
	// switches over the collection, involuntary (the kernel gave a worker's
	// CPU to another thread: a wakee, the collector woken in Join) and
	// voluntary (a worker slept: on the work condition, on the mutex),
	// from each worker's /proc/self/task/TID/status read just before the
	// pause and just after it, outside the timed interval. On one CPU a
	// preempted worker's job lasts as long as what ran in its place, so
	// these say whose time a job's duration holds. WorkerSwitchesCounted is
	// false where they were not counted: Serial, another backend than
	// Native, not Linux, or a read failed.
	WorkerPreemptions, WorkerSleeps uint64
	WorkerSwitchesCounted           bool
	// WorkerCPU and WorkerWait are the worker threads' time over the
	// collection on a CPU and runnable but waiting for one (the
	// scheduler's run_delay), summed over the workers, from each worker's
	// /proc/self/task/TID/schedstat read with its status file. A worker
	// waits while the CPUs run other threads, so WorkerWait is the
	// parallelism the kernel did not give: on 2 CPUs with 2 workers and the
	// collector asleep in Join, time both workers share one CPU while the
	// other idles. WorkerCPU beyond the jobs' durations is the pool's and
	// the kernel's own work (locks, wakes, switches). WorkerTimesCounted is
	// false where they were not counted, as WorkerSwitchesCounted, or
	// where the kernel has no schedstat files (CONFIG_SCHED_INFO).
	WorkerCPU, WorkerWait time.Duration
	WorkerTimesCounted    bool
	// CollectorCPU is the collector thread's CPU time over the same
	// window (its thread clock), and OtherCPU the rest of the process's
	// (its CPU clock, less the collector's and the workers'): the Go
	// runtime's own threads, which take the CPUs from the workers (on one
	// CPU the pause is the three summed, and any idle time). OtherCPU is
	// clamped at 0: the kernel adds a thread's CPU to either clock as it
	// adds it to schedstat, when the thread next switches, so the two
	// agree but for the microseconds between their reads.
	// CPUSplitCounted is false where they were not counted, as
	// WorkerTimesCounted, or where a clock could not be read.
	CollectorCPU, OtherCPU time.Duration
	CPUSplitCounted        bool
	// HostGCs is the number of host Go GC cycles that overlapped the
	// collection (read just outside the pause): those that completed while
	// it ran, and one still marking when it ended, however long before it
	// started. A sample with HostGCs > 0 may have been disturbed by the
	// host collector.
	HostGCs uint64
	// MajorGCBefore is set when an untimed major collection ran in the
	// mutator phase before this collection.
	MajorGCBefore bool
}

// setWorkerCounts sets the workers' switches and times over a collection
// from the counts read before and after it; a count read only once, or
// that went backwards (a thread gone), stays uncounted.
func (r *Record) setWorkerCounts(before, after threadCounts) {
	if before.switchesOK && after.switchesOK && after.vol >= before.vol && after.invol >= before.invol {
		r.WorkerSleeps, r.WorkerPreemptions, r.WorkerSwitchesCounted = after.vol-before.vol, after.invol-before.invol, true
	}
	if before.timesOK && after.timesOK && after.cpu >= before.cpu && after.wait >= before.wait {
		r.WorkerCPU, r.WorkerWait, r.WorkerTimesCounted = after.cpu-before.cpu, after.wait-before.wait, true
	}
	if r.WorkerTimesCounted && before.clocksOK && after.clocksOK && after.self >= before.self && after.process >= before.process {
		r.CollectorCPU = after.self - before.self
		r.OtherCPU, r.CPUSplitCounted = max(0, after.process-before.process-r.CollectorCPU-r.WorkerCPU), true
	}
}
