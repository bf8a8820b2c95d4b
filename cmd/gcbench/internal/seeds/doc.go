// Package seeds is the common ground of the benchmark protocols of the
// systems gcbench learns from — the measurements that motivated their
// designs — run against gcbench's own building blocks so that each seed's
// claim can be checked beside the alternatives in one run. Each protocol
// is a package of its own:
//
//   - readylist: stress-epoll, Linux's lockless epoll ready list against
//     package jobs/mpsc (gcbench readylist);
//   - poolbench: the .NET DedicatedThreadPool's throughput and latency
//     protocols against package workerpool (gcbench pool);
//   - tracestress: EventPipe's stress protocol against package trace
//     (gcbench trace-stress).
//
// This package holds what they share: the options error
// (ErrInvalidOptions), overflow-checked bounds (MulBounded), the stop
// interval (StopEvery), the OS-thread primitives their actors use
// (ThreadID, CountThreads, FutexWait, FutexWake), and the look of their
// result tables, which each protocol builds itself (NewTable, Partial;
// their cells spelled by render.Float and render.Range). None of it is
// API: the CLI is the protocols' only user, and it only writes what they
// render.
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
//     stats' ([stats.Summarize]); a median is QUARTILE.INC(range,
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
// # Actors on OS threads
//
// The seeds' phenomena — a caravan on a lock, a reader starved of CPU, a
// consumer woken by a producer — are about how the kernel schedules
// threads. So every seed actor here (each ready-list producer and its
// consumer, each trace writer and the session's reader) runs on a
// goroutine locked to an OS thread of its own with runtime.LockOSThread,
// never unlocked, so the thread exits with its goroutine and none is left
// behind. The caller should set GOMAXPROCS above the number of such
// threads (readylist.Procs and tracestress.Procs say how many: actors +
// 1), so that the kernel, not the Go scheduler, decides who runs
// (docs/methodology.md in the module's repository says why).
//
// Thread ids (gettid) and thread CPU time (CLOCK_THREAD_CPUTIME_ID) are
// read on Linux only; elsewhere they read 0 and the consumer's futex sleep
// is a yield.
package seeds
