// Package pausemodel predicts the dispatch part of a parallel minor
// collection's pause — from the end of card preparation to the collector's
// return from Join — for SGen's per-job protocol (one lock, push and wake
// per job, gate closed), for its batch (one lock, every push, one wake,
// then Start) and for workerpool's StartBatch (one lock for every push and
// the gate, one wake after the unlock), on C cores with W workers and J
// jobs. It exists to answer the question a 2-core machine cannot: how the
// difference between them grows with cores and workers.
//
// # The model
//
// Simulate is a discrete-event simulation of the pool protocol, one event
// at a time, with these assumptions, each a simplification of Linux and of
// package workerpool's Threads backend:
//
//   - Threads and cores. The collector and the W workers are OS threads,
//     each core runs one at a time and has its own FIFO run queue. A thread
//     keeps its core from one CPU burst to the next until it blocks (on
//     the queue lock, in its wait, in Join) or is preempted. A core that
//     runs out of threads takes the head of the longest other queue
//     (newly-idle balancing). Collections run one after another on one
//     machine, each starting where the one before left every thread.
//     Between two, while the collector runs the mutator, the workers still
//     awake (woken for nothing, or queued behind the collector when Join
//     returned) run out their wake-ups and go back to sleep: every
//     collection starts with every worker asleep. A first, unreported
//     collection, which starts with the collector on core 0 and worker i
//     on core (i+1) mod C, places them, as the collection before a
//     measured one does.
//   - Wakes. A wake call costs the waker WakeCall plus WakePer for each
//     thread it wakes, plus WakeIdle for each idle core other than its own
//     that one of them goes to (the interrupt that brings that core out of
//     idle, which on a virtual machine costs the waker several times what
//     a thread woken onto its own run queue does); it wakes them one after
//     another while it runs, the i-th WakeCall + i·WakePer after it began,
//     whatever kind of wake it is (a broadcast, a lock's hand-off, Join's).
//     A broadcast with no worker asleep costs nothing, unless a worker an
//     earlier one woke has not yet returned from its wait: workerpool's
//     condition variable counts it as a waiter until then, so the
//     broadcast makes a futex call that wakes nobody, as per-job enqueues
//     do while the workers the first one woke are still coming up. Such a
//     call, and the release of a lock marked contended that nobody sleeps
//     on, is charged WakeCall, which Calibrate measures on calls that
//     woke someone: the model takes the call's own cost to be the same.
//     A woken thread goes to the core it last ran on if that core is idle,
//     else to an idle core if there is one (Linux's select_idle_sibling),
//     and runs there WakeToRun later, when the core has come up; with no
//     core idle it joins the run queue of the core it last ran on, as
//     Linux placed the pool's threads in a scheduler trace of a two-core
//     run. A core is not idle from the moment a thread is on its way onto
//     it.
//   - Preemption. A worker woken onto the core the collector runs on goes
//     to the head of that core's queue, and the collector yields the core
//     to it at the end of its current burst (a return to user space): the
//     worker has slept and is owed CPU time, the collector has run. The
//     collector then resumes as soon as that worker blocks. Because
//     Broadcast wakes under the queue lock, at every enqueue and at Start,
//     as SGen's pool does, a collector preempted there still holds the
//     lock.
//   - The lock is workerpool's futex mutex (Drepper's "Futexes Are
//     Tricky", mutex 3). A thread that finds it taken marks it contended
//     and sleeps; a release of a contended lock is a wake call, which
//     wakes the longest sleeper, if any, on the releaser's CPU; that one
//     tries again once it runs and takes the lock marked contended. A
//     running thread takes a free lock at once even while others sleep on
//     it, and marks it held without sleepers, so that its own release
//     wakes nobody: while woken sleepers are on their way, a collector
//     that barges in enqueues without a wake call. A call of the
//     collector on the queue (an enqueue, a batch, Start) costs it
//     Enqueue, its lock round trip and one push, plus Push for each
//     further job; a worker's look at the queue, and the grab it takes,
//     costs Take.
//   - Futile wake-ups. A worker woken while the gate is closed, or that
//     finds the queue empty, takes the lock, looks (Take), registers as a
//     waiter, releases the lock (a wake call if it is marked contended)
//     and goes back to sleep, Futile in all: Calibrate measures
//     Futile as every CPU the workers ran in gated rounds, their lock
//     hand-offs included, divided by their futile wake-ups. A wake in
//     that window makes it look again at once.
//   - Policies. Broadcast wakes every sleeping worker, at every enqueue and
//     at Start (SGen), under the lock. Targeted wakes nobody while the gate
//     is closed; Start wakes one worker, after releasing the lock, and a
//     worker that takes jobs while more wait than workers are awake wakes
//     one more, on its own CPU.
//     StartBatch makes the wake Start would make, after releasing the lock.
//   - Jobs. A worker takes workerpool's grab under one lock acquisition
//     (half of the queue shared out among the workers, 1 to 64 jobs) and
//     runs it in one burst. Each job costs the time it took (wall clock,
//     from its start to its end, on the one thread that ran it) in a
//     serial collection of the same heap (Work), whatever runs beside it: no
//     memory-bandwidth or cache contention is modelled. Predict simulates
//     one collection per serial collection measured, with that
//     collection's own job costs, in the order measured, and reports their
//     mean, as a measured mean pause is one over collections that differ.
//   - Join. The worker that finishes the last job wakes the collector (a
//     wake call on its CPU), which returns from Join as wakeThread places
//     it.
//
// The costs come only from microbenchmarks of this host's primitives
// (Calibrate: the one-way latency of waking a sleeping worker onto an idle
// core, the waker's CPU per wake call, per thread woken onto its own core
// and per idle core woken, the CPU a futile wake-up costs the worker, the
// enqueuer's CPU per call and per job pushed, a worker's per grab), each
// the median of several runs because they vary from run to run on a
// shared virtual machine, and from serial collections (the cost of each
// job). A single call is timed by the thread's CPU clock, which is itself
// a system call on Linux, so the clock's own cost is measured and taken
// out, and a wake call is solved for with the number of calls the enqueue
// made: a worker woken onto the enqueuer's CPU preempts it under the lock
// and sleeps on that lock, so the unlock wakes it a second time. The threads are pinned to CPUs while
// they are measured, so that each cost is measured where the model
// charges it, and the workers' CPU is read from their own clocks, not the
// process's, which also counts the Go runtime's threads. A host that lets
// the process run on one CPU only cannot measure a wake onto another
// core: WakeToRun and WakeIdle are then 0, and predictions for more cores
// count such wakes as free.
// They are never fitted to the perjob and batch pauses a prediction is
// checked against.
//
// The model leaves out: time-slice preemption and the rest of the
// scheduler's fairness (a collector preempted by a woken worker always
// resumes next); the Go runtime's own threads (in the same trace the
// collector's thread woke a thread of the process that is no worker, by
// its pattern one of the runtime's, more often than it woke workers,
// inside and outside the pauses, and that thread too preempted it); the
// runtime's scheduling of the collector, a goroutine: the runtime
// preempts a goroutine that has run 10 ms without being rescheduled
// (forcePreemptNS in runtime/proc.go) and it may go on on another thread,
// and in scheduler traces of one core that is where many of the
// measured herds of futile wake-ups end (SGen's collector, one thread,
// has no such thing); a Threads worker that needs a P while GOMAXPROCS
// is below workers+1; spinning before sleeping on the lock; the Join's
// brief poll before it sleeps; and memory effects of parallel scans.
package pausemodel
