// Package workerpool is a job-batch worker pool: N workers serve one FIFO
// queue guarded by one mutex, jobs arrive one at a time (Enqueue,
// EnqueueFunc) or as a batch under a single lock acquisition and a single
// wake (EnqueueBatch), workers are goroutines or dedicated OS threads, the
// wake policy is selectable, and exact counters say what each dispatch cost.
// For many concurrent enqueuers the queue can instead be sharded, one queue
// and lock per worker with stealing (Options.Queue).
//
// # Everyday use
//
// New(Options{}) starts GOMAXPROCS goroutine workers with the Targeted
// wake policy. A Group (Pool.NewGroup) is the everyday way to submit: its
// jobs take a context and return an error, Go queues one and GoBatch
// queues many under one lock acquisition with one wake, and Wait waits for
// the group's own jobs (jobs they add through the group included) and
// returns the group's own errors and panics — never another caller's.
// Cancelling the group's context drops its jobs that have not started,
// even those already in a worker's grab; GroupCancelOnError and GroupLimit
// do what errgroup's WithContext and SetLimit do, GroupAllErrors returns
// every error. Map runs a function over a slice as one batch and returns
// the results in order, stopping at the first error.
//
// Options.MaxQueued bounds the queue: TryEnqueue returns ErrQueueFull,
// EnqueueCtx waits for room until its context ends, and a batch is queued
// whole or not at all. Shutdown(ctx) stops accepting, runs the queued jobs
// until ctx ends and discards the rest; it and Close return the panics no
// Join or Wait collected. Stats adds the gauges an operator reads
// (Submitted, Queued, Running, Completed, Failed, Panicked, Dropped).
//
// Groups and Map are for ungated pools. Gated pools, Start, Join and
// StartBatch are the SGen round: a gated pool keeps the Broadcast policy
// (Options.Wake's zero value), as SGen's pool woke.
//
// It exists to measure and to use what Mono's SGen learned (mono/mono#20634):
// its pool took the mutex and broadcast once per job while the workers were
// not yet allowed to work, so every broadcast woke every thread for nothing;
// queuing the batch and broadcasting once cut minor-GC pauses by about 30%.
//
// # Algorithm
//
// The queue is a list of fixed-size blocks reused across rounds, so
// enqueuing and taking jobs do not allocate. Every job gets a sequence number in queue order:
// pushed counts jobs accepted, popped counts jobs taken.
//
// Enqueue takes the lock, pushes, applies the wake policy once, unlocks
// (except on an ungated Targeted pool: see "Lock-free enqueue").
// EnqueueBatch does the same for n jobs: one lock acquisition, one wake
// decision. A worker holds the lock while it looks for work; if the gate is
// open it takes a grab — the oldest min(max(1, q/(2·workers)), MaxGrab) of
// the q queued jobs — releases the lock, runs the grab's jobs in order, and
// re-takes the lock once to retire the grab and take the next one. So a
// worker pays one lock acquisition per grab, not per job, when the queue is
// long, while the shares shrink as the queue drains and the last jobs of a
// round still spread over every worker (Go's runqgrab takes half of a run
// queue for one thief; here all workers share one queue, hence the
// division by the worker count). Job panics are recovered and kept for
// Join.
//
// On an ungated pool a worker that finds no queued job steals the newer
// half of the unstarted jobs of another worker's grab (see steal.go), so
// no job waits behind a slow one while a worker is idle; a gated pool, the
// SGen round, never steals and keeps its counters as they were.
//
// Ordering: jobs are taken in FIFO order (each grab is the oldest run of
// queued jobs) and each worker runs its grab in order, so a pool of one
// worker runs jobs in enqueue order. Grabs of different workers run
// concurrently: a job may start before an older one held by another worker.
//
// Wake policies (what an enqueue of n jobs, Start and Close wake; StartBatch
// wakes as Start does, after releasing the lock):
//
//   - Broadcast wakes every waiting worker, under the lock, even while the
//     gate is closed (SGen). Each woken worker re-takes the lock; with the
//     gate closed it finds nothing and waits again (a futile wake-up).
//   - Signal wakes min(n, workers) waiting workers under the lock, gate or
//     not (one futex call on Threads, n sync.Cond signals on Goroutines).
//   - Targeted keeps parked workers on a stack, each with its own parker.
//     While the gate is open and runnable jobs outnumber the workers already
//     woken, a waker pops one worker and unparks it after unlocking. A
//     worker that takes a job applies the same rule, so wakes chain one at a
//     time and add up to exactly min(runnable jobs, parked workers) (the Go
//     runtime's wakep). Nothing is woken while the gate is closed, so a
//     gated enqueue costs no wake at all.
//   - Spin keeps idle workers spinning for a while before they sleep. One
//     of them, the listener, polls its own state word: an enqueuer that
//     finds it listening takes a grab for it under the lock and hands it
//     over with one CAS, so a round trip to a spinning worker moves one
//     cache line each way and takes no lock on the worker's side (see
//     handoff.go). For the jobs not handed over, Spin releases min(n,
//     workers − outstanding) units of a spin-then-park semaphore after
//     CoreCLR's UnfairSemaphore (see unfairSema): spinning workers take
//     them without a system call. Spinners busy-wait holding a P, for at
//     most 20 µs, and at most GOMAXPROCS−1 of them at once, so that the
//     enqueuers they wait for keep a P. Like Targeted it wakes nobody while
//     the gate is closed.
//
// GOMAXPROCS matters to the Threads backend: a worker thread that sleeps in
// a futex call keeps its P only while the runtime has Ps to spare, so with
// GOMAXPROCS below workers+1 a woken worker may wait for the runtime to
// hand it a P (sysmon retakes the P of a thread blocked in a system call
// after 20 µs or more). Stats.HandoffSleeps counts the sleeps made in that
// regime; Spin avoids most of them, since its spinning listener never
// sleeps while work keeps coming.
//
// On the Goroutines backend the lock is a sync.Mutex and waits use sync.Cond
// and channels. On the Threads backend each worker is locked to its own OS
// thread, never unlocked, so the thread ends with the worker; the lock,
// conditions, parkers and semaphore are futex words (internal/futex). Join
// sleeps on a futex condition too, not on the Go scheduler: the worker
// that would ready a parked joiner goes straight back to sleep in a futex
// syscall still holding its P, so the joiner would wait for sysmon to
// retake that P (sysmon sleeps up to 10 ms; the runtime's proc.go, sysmon
// and retake), which would dominate a Threads round trip.
//
// # Sharded queue
//
// With Options.Queue = Sharded each worker owns a shard, a queue with its own
// lock. Enqueue and EnqueueBatch pick a shard at random and take only its
// lock; a worker takes grabs from its own shard and, when it is empty,
// steals a grab from the others, visited from a random one on. The queue
// lock becomes the pool lock: it guards the gate, the wake policies' state
// and sleeping Joins, and an enqueuer takes it only when a worker sleeps
// and must be woken (Spin reserves its semaphore units with a CAS instead).
// Each shard numbers its jobs, a grab is published as running with its
// shard's index, and a Join's target is one sequence number per shard. See
// shard.go for the invariants this adds. Ordering: FIFO within a shard;
// none across shards. The shared queue stays the default and is what gcsim
// measures: SGen's pool had one.
//
// # Lock-free enqueue
//
// An ungated Targeted pool on the shared queue puts an ingress in front of
// its queue: 1024 cells after Dmitry Vyukov's bounded MPMC queue, whose one
// consumer is whoever holds the queue lock. Enqueue reserves a position
// with one CAS and publishes its job in the position's cell without taking
// the lock; a worker, under the lock, takes its grab from the queue's
// blocks while they hold jobs (they are older) and otherwise straight from
// the cells.
// Enqueue takes the lock only to wake a parked worker when none is already
// on its way — the Targeted rule then applies as after a locked enqueue —
// or to move the jobs of a full ingress to the blocks. With one fast
// submitter the lock was the bottleneck: each enqueue took it, and workers
// coming back for a grab queued behind the submitter. The order stays
// FIFO, Join's sequence numbers stay exact, and Close refuses every later
// reservation at once (see ingress.go). EnqueueBatch, gated pools and the
// other policies keep the locked path, so SGen's per-job protocol — lock,
// push, wake under the lock — is what gcsim measures (its pools are gated).
//
// # Gate, Join and Close
//
// A gated pool (Options.Gated) models SGen's "started" flag: workers take no
// job until Start opens the gate; the last Join to return closes it again,
// so a round is enqueue → Start → Join. StartBatch makes a round's enqueue
// and Start one lock acquisition with one wake, made after the unlock
// under every policy; EnqueueBatch then Start, SGen's round after its fix,
// wakes the workers a first time behind the closed gate, for nothing, and
// under Broadcast and Signal both wakes come under the lock. A Join
// finding the gate closed opens it, since it would otherwise wait for
// jobs that may not run.
//
// Join snapshots pushed as its target and waits until every job with a
// smaller sequence number has finished: popped ≥ target and no worker holds
// a grab whose oldest job is older than the target. That condition is read
// without the lock (pushed, popped and each worker's running are atomics,
// and a grab is published as running before popped moves past it), so a
// Join on an ungated pool whose jobs are done returns without the lock, and
// a Join whose remaining work can run beside it on the other Ps (untaken
// jobs plus running grabs fewer than GOMAXPROCS) polls for up to 20 µs
// before it sleeps (Stats.JoinSpins, Stats.JoinSleeps). On the Goroutines
// backend a polling Join yields while its jobs are untaken, since the
// worker woken for them was readied onto the Join's own P. A worker
// publishes a finished grab as done before it re-takes the lock; the worker
// retiring a grab wakes the sleeping Joins only when the least of their
// targets is reached.
//
// Close marks the pool closed and opens the gate for good under the lock,
// wakes every worker, waits for them to exit, and for Threads waits until
// their OS threads are gone. Close runs every accepted job first, which can
// take seconds for millions of queued jobs; a caller abandoning its work
// calls Discard, which empties the queue under the lock and counts the
// removed jobs as taken (popped), so Joins and Close wait only for the jobs
// already running; on an ungated pool it also takes the unstarted jobs of
// the workers' grabs, as a thief would. Shutdown is Close with a deadline,
// after which it discards.
//
// # Submitting without allocating
//
// The queue stores jobs.Job interface values in blocks that are reused from
// round to round, so Enqueue, EnqueueFunc, EnqueueBatch and StartBatch
// allocate nothing per job once the queue has grown to the largest backlog.
// What a submission costs in allocations is decided by making the job
// value, before the call (TestSubmitFormsAllocate measures each form with
// testing.AllocsPerRun):
//
//   - no allocation: a pointer (p.Enqueue(&job)), a struct or array holding
//     only a pointer, a func value that is not a new closure
//     (p.EnqueueFunc(run) for a top-level function or a func built once and
//     reused), a batch slice reused across calls;
//   - one allocation per job: a closure created per job that captures
//     variables (p.EnqueueFunc(func(int) { use(i) })), a method value
//     (p.EnqueueFunc(job.Run)), and any other non-pointer value converted to
//     jobs.Job (a struct of two words is copied to the heap).
//
// For many small jobs, keep the per-job state in a slice and enqueue
// pointers to its elements, or one job per range of it.
//
// # Invariants
//
//  1. Exactly once: a job is accepted only inside the critical section that
//     pushes it, or by the CAS that reserves its ingress position, and
//     taken only by the grab that pops it under the lock
//     (its shard's lock, when sharded) — a worker's own grab, or one an
//     enqueuer takes for a listening Spin worker. A worker moves past a job
//     before running it, so the goroutine that replaces a worker ended by
//     runtime.Goexit runs the rest of the grab and nothing twice.
//  2. Nothing accepted is stranded. The DedicatedThreadPool seed could lose
//     an item that was accepted after its workers decided to exit; here the
//     in-flight adder count is structurally zero outside the lock, because
//     the closed check and the push are one critical section. A worker
//     exits only when, under the lock, the pool is closed (hence the gate
//     open) and the queue is empty, so every job accepted before Close is
//     run, and none is accepted after — except the jobs a caller removes
//     on purpose with Discard. (Sharded: Close passes through every shard
//     lock after closing, so no push is in flight when workers may exit.
//     Ingress: Close sets a closed bit in the tail word that every later
//     reservation's CAS sees, and a worker exits only once every position
//     reserved before it was published and taken.)
//  3. No lost wake-up: a worker decides to wait under the lock, and every
//     state change that could let it work (push, gate open, close) happens
//     under the lock and is followed by the policy's wake; the primitives
//     remember a wake that arrives before the sleep (futex value checks,
//     parker and semaphore counts). Targeted: while the gate is open, if
//     jobs are queued then either a worker is running (it will look again)
//     or one was woken for them. Spin: every unit taken is followed by a
//     look at the queue; a handoff goes only to a listener that has not
//     stopped listening (the state word's CAS decides), and a listener
//     busy with a handed grab when more jobs arrive is marked pending and
//     looks under the lock next. Where a state change and a sleep are not
//     ordered by one lock — a grab retired without the lock (a handoff, a
//     sharded pool) against a sleeping Join, a sharded or lock-free push
//     against a sleeping worker — each side stores, then loads the other's
//     word (running and joinWaiters; a shard's pushed and sleepers; an
//     ingress cell's sequence number and sleepers), so at least one sees
//     the other.
//  4. Join is exact: a grab is published as running (its oldest sequence
//     number, and shard) before popped moves past it, and cleared only
//     after its jobs ran and, if any panicked, after their panics were
//     kept; so doneUpTo, read without the lock, never reports a job done
//     early, and a Join that sees its jobs done also sees their panics.
//  5. Counters are exact and off the shared hot path: each worker counts in
//     its own cache-line-padded counters; the enqueue side counts under the
//     lock it holds anyway (a shard's counters under the shard's lock);
//     Start, Join, Close and the system calls an enqueuer makes after
//     unlocking count with atomic adds in a separate padded set. Stats sums
//     them without locking.
package workerpool
