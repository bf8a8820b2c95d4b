// Package pausemodel predicts the dispatch part of a parallel minor
// collection's pause — from the end of card preparation to the collector's
// return from Join — for SGen's per-job protocol (one lock, push and wake
// per job, gate closed) and for one batch, on C cores with W workers and J
// jobs. It exists to answer the question a 2-core machine cannot: how the
// difference between the two grows with cores and workers.
//
// # The model
//
// Simulate is a discrete-event simulation of the pool protocol, one event
// at a time, with these assumptions, each a simplification of Linux and of
// package workerpool's Threads backend:
//
//   - Threads and cores. The collector and the W workers are OS threads. A
//     thread that is not blocked needs one of C cores; a thread that wants
//     one while all are busy waits in one FIFO run queue and runs its whole
//     burst once it gets a core, with one exception: a worker's first burst
//     after a wake preempts the collector if no core is free (a thread that
//     slept is behind in virtual run time, and Linux lets it preempt).
//   - Wakes. A thread woken from a futex wait runs WakeToRun later, then
//     asks for a core. A wake call costs the waker WakeCall plus WakePer for
//     each thread it wakes; a call that finds no waiter costs nothing (the
//     pool skips it).
//   - The lock. A thread that finds the queue lock taken sleeps; each
//     release wakes the longest sleeper, which tries again WakeToRun later,
//     and a running thread takes a free lock at once even while others
//     sleep on it (as a futex mutex allows). Holding it to push one job
//     costs Push; a worker's look at the queue (take a job, or find none)
//     costs Take.
//   - Futile wake-ups. A worker woken while the gate is closed, or that
//     finds the queue empty, takes the lock, looks (Take), releases it and
//     spends Futile − Take more CPU going back to sleep; it can be woken
//     again only once it is back in its wait.
//   - Policies. Broadcast wakes every waiting worker, at every enqueue and at
//     Start (SGen). Targeted wakes nobody while the gate is closed; Start
//     wakes one worker, and a worker that takes a job while more jobs wait
//     than workers are awake wakes one more, on its own CPU.
//   - Jobs. Each job costs the CPU time it took in a serial collection of
//     the same heap (Work), whatever runs beside it: no memory-bandwidth or
//     cache contention is modelled.
//   - Join. The worker that finishes the last job wakes the collector (a
//     wake call on its CPU), which returns from Join WakeToRun later.
//
// The costs come only from microbenchmarks of this host's primitives
// (Calibrate: futex wake-to-run latency, the caller's CPU per wake call,
// the CPU a futile wake-up costs, the lock's cost per push and take) and
// from serial collections (the cost of each job). They are never fitted to
// the perjob and batch pauses a prediction is checked against.
//
// The model leaves out: other preemption and CFS fairness, wake-affine
// placement (a woken thread put on its waker's CPU runs sooner than one
// that needs an idle CPU brought up), sysmon's P hand-off
// (a Threads worker that needs a P while GOMAXPROCS is below workers+1),
// spinning before sleeping on the lock, batch dequeue (a worker taking
// several jobs per lock acquisition), and memory effects of parallel scans.
package pausemodel
