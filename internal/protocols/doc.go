// Package protocols runs the benchmark protocols of the systems gcbench
// learns from — the measurements that motivated their designs — against
// gcbench's own building blocks, so that each seed's claim can be checked
// beside the alternatives in one run. It is not API: the CLI
// (cmd/gcbench's readylist, pool and trace-stress commands) is its only
// user.
//
// # What every protocol guarantees
//
//   - Interleaving: a comparison runs every contender within each
//     repetition and changes which goes first from one repetition to the
//     next, so that drift on a shared machine hits them alike; its ratios
//     are between contenders measured in the same run. Absolute numbers
//     depend on the machine; the ratios are what the seeds' claims are
//     about.
//   - Statistics: every median, mean and standard deviation is package
//     package stats' ([stats.Summarize]); a median is QUARTILE.INC(range,
//     2), the mean of the middle two values of an even count.
//   - Bounds: every count is bounded (the Max* constants) and every
//     product of counts is overflow-checked and bounded too, so that an
//     accepted run can finish. Options out of bounds, and unknown
//     protocols, variants and policies, are refused before any work with
//     an error wrapping ErrInvalidOptions; a pool's backend and wake policy
//     are checked by package workerpool when the pool is made.
//   - Cancellation: every run looks at its context at least every 1024
//     events, polls, items or round trips (a pool's batch contender once
//     per batch, so once in all with --batch-size -1; a trace read-back
//     every 4096 events) and returns within milliseconds of a cancel, a
//     whole-run batch within its one EnqueueBatch call. A cancelled
//     comparison returns its error and what it completed — the complete
//     repetitions, or the complete trace-stress runs — marked Partial.
//
// # Ready list: stress-epoll (readylist.go)
//
// RunReadyList and CompareReadyList reproduce stress-epoll
// (stress-epoll.c in github.com/rouming/test-tools), the benchmark of
// Linux's lockless epoll ready list: producers each signal their own
// eventfd a fixed number of times, one consumer collects the ready items
// and sums their counters until it has seen every event, and the result is
// events per millisecond at 8, 16 and 32 producers. Here an eventfd is an
// atomic counter and the ready list is package jobs/mpsc's List (a push is
// one atomic swap, the lockless list) or a mutex-guarded list (the
// spinlock-guarded list it replaced). A producer reaches the list only
// when its counter leaves zero (Transition), or on every event through a
// deduplicating ready path, as the kernel's ep_poll_callback does
// (Callback). Whatever the interleaving, the consumer sums every event
// exactly once and pops no more items than there were events.
//
// As in stress-epoll, producers and consumer are threads, and the
// consumer sleeps while nothing is ready: it announces that it waits,
// looks at the list once more, and sleeps on a futex word that the next
// producer to find it waiting clears and wakes (ep_poll adding itself to
// ep->wq, ep_poll_callback's waitqueue_active and wake_up; see
// readyWaiter). It never polls, so its CPU goes to the producers, and the
// list's cost is the producers' per-event ready path plus the wake-ups
// that the list's emptiness brings about.
//
// # Pool: DedicatedThreadPool (pool.go)
//
// RunPool and ComparePool reproduce the throughput and latency protocols
// of the .NET DedicatedThreadPool (github.com/helios-io/DedicatedThreadPool):
// Throughput queues many tiny items at once and waits for all of them;
// Latency submits one item and waits for it, again and again, so that
// every round trip finds the workers idle and pays a wake-up. The
// contenders are package workerpool in every backend and wake policy, with
// per-item Enqueue and with EnqueueBatch, beside a goroutine per item and
// a sync.WaitGroup. A run fails unless every item ran exactly once.
//
// # Trace stress: EventPipe (tracestress.go, tracefile.go)
//
// TraceStress reproduces EventPipe's stress protocol (src/tests/EventPipeStress
// in github.com/dotnet/diagnostics) against package trace, a port of
// EventPipe's buffer manager (src/native/eventpipe/ep-buffer-manager.c in
// github.com/dotnet/runtime): writers write fixed-size events as fast as
// they can into a session with a byte budget while its reader streams them
// to a file, and the file is read back to count the events read and
// dropped. It compares the Lockless buffer reservation (a CAS loop that
// fails without taking a lock) with the Locked one it replaced. For every
// run, events read + events dropped = events the writers attempted,
// checked against the session's own counters, and the run's file leaves
// no path behind, even if the process is killed. The reported figures are
// counted while the writers write, for the run's duration from the first
// dropped event (neither the initial fill of the empty budget nor the
// final drain).
// Each run also records the reader's flushes made against those its pause
// asks for (counted time / flush interval), its manager-lock acquisitions
// per flush, its thread's CPU share, and the lock's waits: event
// throughput is the reader's drain, since writers refill the budget as
// soon as a flush frees it, so these say where a policy's throughput went.
// With trace.EventPipeReader, SpinLock and the allocation in the lock (the
// command's defaults) the session runs EventPipe's protocol as
// dotnet/runtime#50797 measured it, the reader queueing on the manager
// lock with the writers.
//
// # Actors on OS threads
//
// The seeds' phenomena — a caravan on a lock, a reader starved of CPU, a
// consumer woken by a producer — are about how the kernel schedules
// threads. So every seed actor here (each ready-list producer and its
// consumer, each trace writer and the session's reader) runs on a
// goroutine locked to an OS thread of its own with runtime.LockOSThread,
// never unlocked, so the thread exits with its goroutine and none is left
// behind. The caller should set GOMAXPROCS above the number of such
// threads (cmd/gcbench does: actors + 1), so that the kernel, not the Go
// scheduler, decides who runs (docs/methodology.md in the module's
// repository says why).
//
// Thread ids (gettid) and thread CPU time (CLOCK_THREAD_CPUTIME_ID) are
// read on Linux only; elsewhere they read 0 and the consumer's futex sleep
// is a yield.
package protocols
