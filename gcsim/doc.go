// Package gcsim simulates SGen-style parallel minor garbage collections on
// a heap.Heap and measures their pauses under different job-dispatch
// strategies.
//
// A Sim owns a heap, a seeded mutator and a gated workerpool.Pool. Each
// round is Mutate (untimed: fill the nursery, store nursery references into
// old objects, LOS objects and roots through the write barrier, and run an
// untimed major collection when the major heap runs low) followed by Collect
// (the timed pause):
//
//  1. card prep: copy the cards to the shadow table and clear them;
//  2. dispatch: the collection's jobs — one roots job ("scan wbroots"), S
//     major-heap jobs over contiguous block ranges and S LOS jobs over
//     contiguous slices of the LOS object array, S = jobs.SplitCount(workers)
//     (8 workers: 1 + 32 + 32 = 65 jobs) — are run inline (Serial),
//     enqueued one at a time (PerJob: SGen's simple-par collector as it
//     was, one sgen_thread_pool_job_enqueue per job, each broadcasting to
//     the workers) or as one batch (Batch: SGen's deferred jobs, queued and
//     then signalled once by sgen_thread_pool_flush_deferred_jobs; both in
//     mono/mono's mono/sgen/sgen-thread-pool.c), and the gate is opened
//     with Start — or the batch is queued and the gate opened under one
//     lock acquisition with one wake, made after the unlock (StartBatch:
//     SGen's fix without its flush broadcast, which woke the workers
//     behind the closed gate);
//  3. join: wait for every job;
//  4. nursery reset: return the workers' promotion blocks and empty the nursery.
//
// Each job scans marked cards; for every nursery reference it promotes the
// object exactly once (a CAS on the original's forwarding word), updates the
// slot and drains its own gray stack (heap.Promoter). The jobs are built
// once, in New, and reused, and the per-worker state is preallocated, so a
// pause allocates nothing on the Go heap: the host collector has no reason
// to run inside a measurement, and Record.HostGCs flags a sample when it
// did anyway.
//
// Every job runs wrapped in a jobs.Timed that pushes a completion record
// (job, worker, start, end) onto a lock-free mpsc.List from the worker that
// ran it; after the pause the collecting goroutine drains exactly one
// record per job and Record gets the per-job mean and maximum duration and
// the load imbalance across workers (Record.Imbalance; 1.0 is an even
// split). Sim.Completions returns the last collection's records.
//
// With Config.Trace set, the Sim records collection start and end around
// every pause, and job start and end for every job (the pool's workers
// through workerpool.Options.Observer, Serial's inline jobs itself), into a
// trace.Session, through a TraceObserver. The event kinds are gcsim's
// (TraceCollectionStart to TraceFutileWake); TraceKindName names them and
// ChromeTracks lays them out for trace.ExportChrome.
//
// Compare runs several modes interleaved in rotating rounds on one evolving
// heap, so machine drift hits every mode alike.
//
// # Configuration errors and cancellation
//
// Config.Validate, New and Compare report a setting that cannot be used as a
// *ConfigError: the field's path in Config, the value given and what would
// be accepted, with the bound as a number (for a heap too small for the
// nursery and the workers, the least major heap that would do), so a front
// end maps it to its own flag with errors.As instead of parsing messages.
//
// NewContext, MutateContext, CollectContext and Compare look at a context in
// every untimed phase that can take long at large sizes — building the
// initial heap, filling the nursery, major collections, verification —
// after about every MiB of work, so they return within milliseconds of a
// cancel with an error wrapping ctx.Err(). The pause never looks at it.
// Compare then returns the records taken so far as a partial Result.
//
// # GOMAXPROCS and the Threads backend
//
// A Threads worker is a goroutine locked to its OS thread, and it still needs
// one of the runtime's GOMAXPROCS Ps to run Go code. With GOMAXPROCS equal to
// the CPU count and more workers than that, a worker woken from its futex
// waits for a P; Ps held by threads blocked in futex system calls (the
// collecting goroutine in Join, parked workers) are handed on only when the
// runtime's sysmon retakes them, and sysmon sleeps from 20 µs up to 10 ms
// between its checks (sysmon and retake in the Go runtime's
// src/runtime/proc.go). Those waits are the Go scheduler's, not the
// dispatch's, and they can dominate a pause. To model SGen's pthread pool,
// where only the kernel schedules threads, run with GOMAXPROCS ≥ Workers+1,
// so that every worker and the collecting goroutine can hold a P at once;
// gcbench run sets Workers+1 for the Threads backend unless --gomaxprocs
// says otherwise.
//
// # The Native backend
//
// workerpool's Native backend runs SGen's pool itself, in C on pthreads
// (see workerpool.Native): the herds of futile wake-ups a per-job
// broadcast makes behind the closed gate are then the kernel's alone, with
// the pthread mutex kind (Config.Mutex) deciding how woken workers and the
// collector share the lock. DefaultConfig picks it where the build has it
// (DefaultBackend). Each job is a callback into Go and needs a P, so the
// GOMAXPROCS advice above holds for it too.
//
// The collections run on the goroutine that calls Collect or Compare, and
// the runtime may move a goroutine to another thread, among other times
// when it has run 10 ms without being rescheduled (forcePreemptNS in
// runtime/proc.go). SGen's collector is one thread; to have one, call from
// a goroutine locked to its thread (runtime.LockOSThread), as gcbench run
// --lock-collector does. On a busy core it matters: there the moves cut a
// per-job broadcast's herds of futile wake-ups short. The runtime still
// preempts a locked goroutine, whose thread then sleeps until it has a P
// again, which cuts some herds short too.
package gcsim
