package gcsim

import (
	"time"

	"github.com/gcbench/gcbench/internal/enum"
)

// Counter is one per-collection value of a Record that reports keep, by
// its key (String): the one spelling of it in text, CSV, JSON and HTML
// reports and in the model check. Times are in microseconds, as the keys'
// "_us" says.
type Counter int

// The counters, in the order reports list them.
const (
	CounterCardPrep                      Counter = iota // Record.CardPrep (µs)
	CounterDispatch                                     // Record.Dispatch (µs)
	CounterJoin                                         // Record.Join (µs)
	CounterNurseryReset                                 // Record.NurseryReset (µs)
	CounterToFirstJob                                   // Record.ToFirstJob (µs)
	CounterJobSpan                                      // Record.JobSpan (µs)
	CounterJoinLatency                                  // Record.JoinLatency (µs)
	CounterJobs                                         // Record.Jobs
	CounterJobMean                                      // Record.JobMean (µs)
	CounterJobMax                                       // Record.JobMax (µs)
	CounterJobWorkers                                   // Record.JobWorkers
	CounterImbalance                                    // Record.Imbalance
	CounterDirtyCards                                   // Record.DirtyCards
	CounterPromotedObjects                              // Record.PromotedObjects
	CounterPromotedBytes                                // Record.PromotedBytes
	CounterHostGCs                                      // Record.HostGCs
	CounterMajorGCBefore                                // Record.MajorGCBefore: 1 or 0
	CounterEnqueueLockAcquisitions                      // Record.Pool.EnqueueLockAcquisitions
	CounterLockAcquisitions                             // Record.Pool.LockAcquisitions
	CounterEnqueueWakeCalls                             // Record.Pool.EnqueueWakeCalls
	CounterWakeCalls                                    // Record.Pool.WakeCalls
	CounterWorkersWoken                                 // Record.Pool.WorkersWoken
	CounterFutileWakeups                                // Record.Pool.FutileWakeups
	CounterFutexCalls                                   // Record.Pool.FutexCalls, when counted
	CounterCollectorPreemptions                         // Record.CollectorPreemptions, when counted
	CounterWakeupsOnCollectorCPU                        // Record.Pool.Kernel.WakeupsOnWakerCPU, when counted
	CounterWakeupsElsewhere                             // Record.Pool.Kernel.WakeupsElsewhere, when counted
	CounterAsleepOnMutexAtStart                         // Record.Pool.Kernel.AsleepOnMutex, with a snapshot
	CounterAsleepOnWorkCondAtStart                      // Record.Pool.Kernel.AsleepOnWorkCond, with a snapshot
	CounterRunnableOnCollectorCPUAtStart                // Record.Pool.Kernel.RunnableOnWakerCPU, with a snapshot
	CounterRunnableElsewhereAtStart                     // Record.Pool.Kernel.RunnableElsewhere, with a snapshot
	CounterWorkerPreemptions                            // Record.WorkerPreemptions, when counted
	CounterWorkerSleeps                                 // Record.WorkerSleeps, when counted
	CounterWorkerCPU                                    // Record.WorkerCPU (µs), when counted
	CounterWorkerWait                                   // Record.WorkerWait (µs), when counted
	CounterCollectorCPU                                 // Record.CollectorCPU (µs), when counted
	CounterOtherCPU                                     // Record.OtherCPU (µs), when counted
)

var counterNames = enum.New[Counter]("Counter", "counter", nil,
	"card_prep_us", "dispatch_us", "join_us", "nursery_reset_us", "to_first_job_us", "job_span_us", "join_latency_us",
	"jobs", "job_mean_us", "job_max_us", "job_workers", "load_imbalance", "dirty_cards", "promoted_objects",
	"promoted_bytes", "host_gcs", "major_gc_before",
	"pool_enqueue_lock_acquisitions", "pool_lock_acquisitions", "pool_enqueue_wake_calls", "pool_wake_calls",
	"pool_workers_woken", "pool_futile_wakeups", "pool_futex_calls",
	"collector_preemptions", "wakeups_on_collector_cpu", "wakeups_elsewhere",
	"asleep_on_mutex_at_start", "asleep_on_work_cond_at_start",
	"runnable_on_collector_cpu_at_start", "runnable_elsewhere_at_start",
	"worker_preemptions", "worker_sleeps", "worker_cpu_us", "worker_wait_us",
	"collector_cpu_us", "other_cpu_us")

// counterLabels says what each counter is, for a reader of a report.
var counterLabels = [...]string{
	CounterCardPrep:                      "card preparation",
	CounterDispatch:                      "collector in enqueue calls and Start (µs; overlaps the parts)",
	CounterJoin:                          "join (µs)",
	CounterNurseryReset:                  "nursery reset",
	CounterToFirstJob:                    "dispatch: to the first job's start",
	CounterJobSpan:                       "first-to-last job span",
	CounterJoinLatency:                   "join: last job's end to resume",
	CounterJobs:                          "jobs",
	CounterJobMean:                       "mean job (µs)",
	CounterJobMax:                        "longest job (µs)",
	CounterJobWorkers:                    "workers that ran jobs",
	CounterImbalance:                     "load imbalance (busiest/mean)",
	CounterDirtyCards:                    "dirty cards",
	CounterPromotedObjects:               "promoted objects",
	CounterPromotedBytes:                 "promoted bytes",
	CounterHostGCs:                       "host Go GC cycles overlapping",
	CounterMajorGCBefore:                 "major collection before",
	CounterEnqueueLockAcquisitions:       "enqueue-side lock acquisitions",
	CounterLockAcquisitions:              "lock acquisitions",
	CounterEnqueueWakeCalls:              "enqueue-side wake calls",
	CounterWakeCalls:                     "wake calls",
	CounterWorkersWoken:                  "workers woken",
	CounterFutileWakeups:                 "futile wake-ups",
	CounterFutexCalls:                    "futex calls",
	CounterCollectorPreemptions:          "collector preemptions in dispatch",
	CounterWakeupsOnCollectorCPU:         "wake-ups on the collector's CPU",
	CounterWakeupsElsewhere:              "wake-ups on another CPU",
	CounterAsleepOnMutexAtStart:          "at Start: workers asleep on the mutex",
	CounterAsleepOnWorkCondAtStart:       "at Start: workers asleep on work_cond",
	CounterRunnableOnCollectorCPUAtStart: "at Start: workers runnable on the collector's CPU",
	CounterRunnableElsewhereAtStart:      "at Start: workers runnable on another CPU",
	CounterWorkerPreemptions:             "workers preempted (involuntary switches)",
	CounterWorkerSleeps:                  "workers' sleeps (voluntary switches)",
	CounterWorkerCPU:                     "workers' CPU (µs)",
	CounterWorkerWait:                    "workers waiting for a CPU (µs)",
	CounterCollectorCPU:                  "collector's CPU (µs)",
	CounterOtherCPU:                      "other threads' CPU (µs; the Go runtime's)",
}

// Counters lists every counter, in report order.
func Counters() []Counter { return counterNames.Values() }

// String returns the counter's key ("to_first_job_us",
// "pool_futile_wakeups"), or "Counter(n)" for a value without one.
func (c Counter) String() string { return counterNames.String(c) }

// MarshalText returns the counter's key, or an error for a value without one.
func (c Counter) MarshalText() ([]byte, error) { return counterNames.Marshal(c) }

// UnmarshalText sets c from its key.
func (c *Counter) UnmarshalText(text []byte) error { return counterNames.Unmarshal(text, c) }

// Label says what the counter is, in a few words, for a report's reader
// ("futile wake-ups"); "" for a value without a key.
func (c Counter) Label() string {
	if !counterNames.Valid(c) {
		return ""
	}
	return counterLabels[c]
}

// Value returns the counter's value in r, and false if r did not count it
// or c has no key: a report shows it as absent, not as 0. Uncounted are
// the futex calls of a backend whose futex calls are the C library's
// (Stats.FutexUncounted); the kernel's observables (collector_preemptions
// through other_cpu_us) everywhere but on the Native
// backend on Linux in a pool mode, or where the kernel refused a read; and
// the four "_at_start" counts without Config.KernelSnapshot.
func (c Counter) Value(r *Record) (float64, bool) {
	if !counterNames.Valid(c) || !counted(c, r) {
		return 0, false
	}
	return counterValues[c](r), true
}

// counted reports whether r counted c.
func counted(c Counter, r *Record) bool {
	k := &r.Pool.Kernel
	switch c {
	case CounterFutexCalls:
		return !r.Pool.FutexUncounted
	case CounterCollectorPreemptions:
		return r.CollectorPreemptionsCounted
	case CounterWakeupsOnCollectorCPU, CounterWakeupsElsewhere:
		return k.WakeCPUsCounted && k.WakeupsUnclassified == 0
	case CounterAsleepOnMutexAtStart, CounterAsleepOnWorkCondAtStart,
		CounterRunnableOnCollectorCPUAtStart, CounterRunnableElsewhereAtStart:
		return k.Snapshots > 0 && k.SnapshotsFailed == 0
	case CounterWorkerPreemptions, CounterWorkerSleeps:
		return r.WorkerSwitchesCounted
	case CounterWorkerCPU, CounterWorkerWait:
		return r.WorkerTimesCounted
	case CounterCollectorCPU, CounterOtherCPU:
		return r.CPUSplitCounted
	}
	return true
}

// us is d in microseconds, the unit of the timing counters.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// counterValues reads each counter from a Record.
var counterValues = [...]func(r *Record) float64{
	CounterCardPrep:        func(r *Record) float64 { return us(r.CardPrep) },
	CounterDispatch:        func(r *Record) float64 { return us(r.Dispatch) },
	CounterJoin:            func(r *Record) float64 { return us(r.Join) },
	CounterNurseryReset:    func(r *Record) float64 { return us(r.NurseryReset) },
	CounterToFirstJob:      func(r *Record) float64 { return us(r.ToFirstJob) },
	CounterJobSpan:         func(r *Record) float64 { return us(r.JobSpan) },
	CounterJoinLatency:     func(r *Record) float64 { return us(r.JoinLatency) },
	CounterJobs:            func(r *Record) float64 { return float64(r.Jobs) },
	CounterJobMean:         func(r *Record) float64 { return us(r.JobMean) },
	CounterJobMax:          func(r *Record) float64 { return us(r.JobMax) },
	CounterJobWorkers:      func(r *Record) float64 { return float64(r.JobWorkers) },
	CounterImbalance:       func(r *Record) float64 { return r.Imbalance },
	CounterDirtyCards:      func(r *Record) float64 { return float64(r.DirtyCards) },
	CounterPromotedObjects: func(r *Record) float64 { return float64(r.PromotedObjects) },
	CounterPromotedBytes:   func(r *Record) float64 { return float64(r.PromotedBytes) },
	CounterHostGCs:         func(r *Record) float64 { return float64(r.HostGCs) },
	CounterMajorGCBefore: func(r *Record) float64 {
		if r.MajorGCBefore {
			return 1
		}
		return 0
	},
	CounterEnqueueLockAcquisitions:       func(r *Record) float64 { return float64(r.Pool.EnqueueLockAcquisitions) },
	CounterLockAcquisitions:              func(r *Record) float64 { return float64(r.Pool.LockAcquisitions) },
	CounterEnqueueWakeCalls:              func(r *Record) float64 { return float64(r.Pool.EnqueueWakeCalls) },
	CounterWakeCalls:                     func(r *Record) float64 { return float64(r.Pool.WakeCalls) },
	CounterWorkersWoken:                  func(r *Record) float64 { return float64(r.Pool.WorkersWoken) },
	CounterFutileWakeups:                 func(r *Record) float64 { return float64(r.Pool.FutileWakeups) },
	CounterFutexCalls:                    func(r *Record) float64 { return float64(r.Pool.FutexCalls) },
	CounterCollectorPreemptions:          func(r *Record) float64 { return float64(r.CollectorPreemptions) },
	CounterWakeupsOnCollectorCPU:         func(r *Record) float64 { return float64(r.Pool.Kernel.WakeupsOnWakerCPU) },
	CounterWakeupsElsewhere:              func(r *Record) float64 { return float64(r.Pool.Kernel.WakeupsElsewhere) },
	CounterAsleepOnMutexAtStart:          func(r *Record) float64 { return float64(r.Pool.Kernel.AsleepOnMutex) },
	CounterAsleepOnWorkCondAtStart:       func(r *Record) float64 { return float64(r.Pool.Kernel.AsleepOnWorkCond) },
	CounterRunnableOnCollectorCPUAtStart: func(r *Record) float64 { return float64(r.Pool.Kernel.RunnableOnWakerCPU) },
	CounterRunnableElsewhereAtStart:      func(r *Record) float64 { return float64(r.Pool.Kernel.RunnableElsewhere) },
	CounterWorkerPreemptions:             func(r *Record) float64 { return float64(r.WorkerPreemptions) },
	CounterWorkerSleeps:                  func(r *Record) float64 { return float64(r.WorkerSleeps) },
	CounterWorkerCPU:                     func(r *Record) float64 { return us(r.WorkerCPU) },
	CounterWorkerWait:                    func(r *Record) float64 { return us(r.WorkerWait) },
	CounterCollectorCPU:                  func(r *Record) float64 { return us(r.CollectorCPU) },
	CounterOtherCPU:                      func(r *Record) float64 { return us(r.OtherCPU) },
}

// AnatomyParts are the counters that split a pause into parts, in time
// order: CardPrep + ToFirstJob + JobSpan + JoinLatency + NurseryReset =
// Pause (Record), so a difference between modes is attributed part by part.
func AnatomyParts() []Counter {
	return []Counter{CounterCardPrep, CounterToFirstJob, CounterJobSpan, CounterJoinLatency, CounterNurseryReset}
}

// ScalingCounters are the counters that explain how a mode's pause
// scales with the workers: the wake-ups that found no job, and the futex
// calls the pool's locks and wakes made.
func ScalingCounters() []Counter { return []Counter{CounterFutileWakeups, CounterFutexCalls} }

// AnatomyCounters are the counters that explain the anatomy's parts: what
// the collector spent dispatching, the jobs' size and balance, what the
// pool's locks and wakes did, and what the kernel did with the collector
// and the woken (KernelCounters).
func AnatomyCounters() []Counter {
	return append([]Counter{CounterDispatch, CounterJobMean, CounterImbalance, CounterEnqueueLockAcquisitions,
		CounterEnqueueWakeCalls, CounterWorkersWoken, CounterFutileWakeups, CounterFutexCalls}, KernelCounters()...)
}

// KernelCounters are the kernel's observables of a collection on the
// Native backend (Linux): the collector's preemptions during dispatch,
// the wake-ups by the CPU they woke on, the workers' state at the gate's
// opening (Config.KernelSnapshot), the workers' preemptions, sleeps, CPU
// time and wait for a CPU over the collection, and the CPU the collector
// and the process's other threads spent over it. Elsewhere they are
// uncounted (Value's false).
func KernelCounters() []Counter {
	return []Counter{CounterCollectorPreemptions, CounterWakeupsOnCollectorCPU, CounterWakeupsElsewhere,
		CounterAsleepOnMutexAtStart, CounterAsleepOnWorkCondAtStart,
		CounterRunnableOnCollectorCPUAtStart, CounterRunnableElsewhereAtStart,
		CounterWorkerPreemptions, CounterWorkerSleeps, CounterWorkerCPU, CounterWorkerWait,
		CounterCollectorCPU, CounterOtherCPU}
}
