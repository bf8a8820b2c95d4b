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
	CounterCardPrep                Counter = iota // Record.CardPrep (µs)
	CounterDispatch                               // Record.Dispatch (µs)
	CounterJoin                                   // Record.Join (µs)
	CounterNurseryReset                           // Record.NurseryReset (µs)
	CounterToFirstJob                             // Record.ToFirstJob (µs)
	CounterJobSpan                                // Record.JobSpan (µs)
	CounterJoinLatency                            // Record.JoinLatency (µs)
	CounterJobs                                   // Record.Jobs
	CounterJobMean                                // Record.JobMean (µs)
	CounterJobMax                                 // Record.JobMax (µs)
	CounterJobWorkers                             // Record.JobWorkers
	CounterImbalance                              // Record.Imbalance
	CounterDirtyCards                             // Record.DirtyCards
	CounterPromotedObjects                        // Record.PromotedObjects
	CounterPromotedBytes                          // Record.PromotedBytes
	CounterHostGCs                                // Record.HostGCs
	CounterMajorGCBefore                          // Record.MajorGCBefore: 1 or 0
	CounterEnqueueLockAcquisitions                // Record.Pool.EnqueueLockAcquisitions
	CounterLockAcquisitions                       // Record.Pool.LockAcquisitions
	CounterEnqueueWakeCalls                       // Record.Pool.EnqueueWakeCalls
	CounterWakeCalls                              // Record.Pool.WakeCalls
	CounterWorkersWoken                           // Record.Pool.WorkersWoken
	CounterFutileWakeups                          // Record.Pool.FutileWakeups
	CounterFutexCalls                             // Record.Pool.FutexCalls, when counted
)

var counterNames = enum.New[Counter]("Counter", "counter", nil,
	"card_prep_us", "dispatch_us", "join_us", "nursery_reset_us", "to_first_job_us", "job_span_us", "join_latency_us",
	"jobs", "job_mean_us", "job_max_us", "job_workers", "load_imbalance", "dirty_cards", "promoted_objects",
	"promoted_bytes", "host_gcs", "major_gc_before",
	"pool_enqueue_lock_acquisitions", "pool_lock_acquisitions", "pool_enqueue_wake_calls", "pool_wake_calls",
	"pool_workers_woken", "pool_futile_wakeups", "pool_futex_calls")

// counterLabels says what each counter is, for a reader of a report.
var counterLabels = [...]string{
	CounterCardPrep:                "card preparation",
	CounterDispatch:                "collector in enqueue calls and Start (µs; overlaps the parts)",
	CounterJoin:                    "join (µs)",
	CounterNurseryReset:            "nursery reset",
	CounterToFirstJob:              "dispatch: to the first job's start",
	CounterJobSpan:                 "first-to-last job span",
	CounterJoinLatency:             "join: last job's end to resume",
	CounterJobs:                    "jobs",
	CounterJobMean:                 "mean job (µs)",
	CounterJobMax:                  "longest job (µs)",
	CounterJobWorkers:              "workers that ran jobs",
	CounterImbalance:               "load imbalance (busiest/mean)",
	CounterDirtyCards:              "dirty cards",
	CounterPromotedObjects:         "promoted objects",
	CounterPromotedBytes:           "promoted bytes",
	CounterHostGCs:                 "host Go GC cycles overlapping",
	CounterMajorGCBefore:           "major collection before",
	CounterEnqueueLockAcquisitions: "enqueue-side lock acquisitions",
	CounterLockAcquisitions:        "lock acquisitions",
	CounterEnqueueWakeCalls:        "enqueue-side wake calls",
	CounterWakeCalls:               "wake calls",
	CounterWorkersWoken:            "workers woken",
	CounterFutileWakeups:           "futile wake-ups",
	CounterFutexCalls:              "futex calls",
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
// (the futex calls of a backend whose futex calls are the C library's,
// Stats.FutexUncounted): a report shows it as absent, not as 0.
func (c Counter) Value(r *Record) (float64, bool) {
	if d, ok := c.duration(r); ok {
		return float64(d) / float64(time.Microsecond), true
	}
	switch c {
	case CounterJobs:
		return float64(r.Jobs), true
	case CounterJobWorkers:
		return float64(r.JobWorkers), true
	case CounterImbalance:
		return r.Imbalance, true
	case CounterDirtyCards:
		return float64(r.DirtyCards), true
	case CounterPromotedObjects:
		return float64(r.PromotedObjects), true
	case CounterPromotedBytes:
		return float64(r.PromotedBytes), true
	case CounterHostGCs:
		return float64(r.HostGCs), true
	case CounterMajorGCBefore:
		if r.MajorGCBefore {
			return 1, true
		}
		return 0, true
	}
	return c.pool(r)
}

// duration is the time a timing counter reads from r.
func (c Counter) duration(r *Record) (time.Duration, bool) {
	switch c {
	case CounterCardPrep:
		return r.CardPrep, true
	case CounterDispatch:
		return r.Dispatch, true
	case CounterJoin:
		return r.Join, true
	case CounterNurseryReset:
		return r.NurseryReset, true
	case CounterToFirstJob:
		return r.ToFirstJob, true
	case CounterJobSpan:
		return r.JobSpan, true
	case CounterJoinLatency:
		return r.JoinLatency, true
	case CounterJobMean:
		return r.JobMean, true
	case CounterJobMax:
		return r.JobMax, true
	}
	return 0, false
}

// pool is the value of a pool counter in r.
func (c Counter) pool(r *Record) (float64, bool) {
	p := &r.Pool
	switch c {
	case CounterEnqueueLockAcquisitions:
		return float64(p.EnqueueLockAcquisitions), true
	case CounterLockAcquisitions:
		return float64(p.LockAcquisitions), true
	case CounterEnqueueWakeCalls:
		return float64(p.EnqueueWakeCalls), true
	case CounterWakeCalls:
		return float64(p.WakeCalls), true
	case CounterWorkersWoken:
		return float64(p.WorkersWoken), true
	case CounterFutileWakeups:
		return float64(p.FutileWakeups), true
	case CounterFutexCalls:
		return float64(p.FutexCalls), !p.FutexUncounted
	}
	return 0, false
}

// AnatomyParts are the counters that split a pause into parts, in time
// order: CardPrep + ToFirstJob + JobSpan + JoinLatency + NurseryReset =
// Pause (Record), so a difference between modes is attributed part by part.
func AnatomyParts() []Counter {
	return []Counter{CounterCardPrep, CounterToFirstJob, CounterJobSpan, CounterJoinLatency, CounterNurseryReset}
}

// AnatomyCounters are the counters that explain the anatomy's parts: what
// the collector spent dispatching, the jobs' size and balance, and what
// the pool's locks and wakes did.
func AnatomyCounters() []Counter {
	return []Counter{CounterDispatch, CounterJobMean, CounterImbalance, CounterEnqueueLockAcquisitions,
		CounterEnqueueWakeCalls, CounterWorkersWoken, CounterFutileWakeups, CounterFutexCalls}
}
