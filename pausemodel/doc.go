// Package pausemodel predicts the dispatch part of a parallel minor
// collection's pause — from the end of card preparation to the collector's
// return from Join — for SGen's thread pool as workerpool's Native
// backend runs it (mono/sgen/sgen-thread-pool.c on pthreads), for its
// per-job dispatch (lock, push, broadcast, unlock, once per job, then
// Start), its batch (one hold for every push and one broadcast, then
// Start) and workerpool's StartBatch (one hold for every push and the
// gate, one broadcast after the unlock), on C cores with W workers, with a
// normal or a PI mutex. It names them as gcsim names its modes and
// workerpool its mutex kinds (Modes, MutexKinds), and refuses the others
// with an error wrapping ErrNotModelled. It exists to answer the question a 2-core machine
// cannot: how the difference between them grows with cores and workers.
// Simulate is deterministic (the same Costs and Shape give the same
// Result), and no cost is fitted to the pauses a prediction is checked
// against. The model's evidence and commands: docs/predict.md in the
// module's repository.
//
// The package has three parts, each in its own files:
//
//   - the pure simulation (simulate.go, pool.go): Simulate and
//     SimulateSeries, from Costs and a Shape;
//   - the host's calibration (calibrate.go, affinity.go): Calibrate, which
//     measures Costs with microbenchmarks of the Native pool's primitives
//     on this host;
//   - the measurement of job costs (work.go): MeasureWork, serial
//     collections of a heap; MeasureSlowdown, the factor the same jobs
//     take on k of the Native pool's worker threads at once (Work.Scaled
//     applies it); and Predict, which simulates them.
//
// Package cmd/gcbench/internal/modelcheck compares predictions with measured sweeps.
//
// # The model
//
// Simulate is a discrete-event simulation, one event at a time, with
// these assumptions, each a simplification of Linux, glibc and the
// Native pool:
//
//   - Threads and cores. The collector and the W workers are OS threads;
//     each core runs one at a time and has its own FIFO run queue. A
//     thread keeps its core from one CPU burst to the next until it blocks
//     (on the mutex, in a condition wait) or is preempted. A core that runs
//     out of threads takes the head of the longest other queue (newly-idle
//     balancing); a Shape's Kernel can say instead that it waits for the
//     next tick (BalanceAtTick: since Linux 6.18.5 a newly idle core
//     balances only as often as its balancing has lately succeeded, so
//     two workers can share one core while the other idles until the
//     busy core's tick). Collections run one after another, each
//     starting where the one before left every thread, with every worker
//     asleep in its wait; a first, unreported collection places them.
//   - Wakes. A wake call costs the waker WakeCall plus WakePer for each
//     thread it wakes, plus WakeIdle for each idle core other than its own
//     that one of them goes to (the interrupt that brings it out of idle);
//     the i-th thread is woken WakeCall + i·WakePer after the call began. A
//     woken thread goes to the core it last ran on if that core is idle,
//     else to an idle core if there is one (select_idle_sibling), and runs
//     there after a wake-to-run drawn from the calibration's measured
//     distribution (WakeToRunDist; WakeToRun where it has none); with no
//     core idle it joins the run queue of the less loaded of its last
//     core and the waker's (wake_affine_weight in kernel/sched/fair.c),
//     its last core on a tie. A Shape's Kernel can give instead the share
//     of wake-ups the kernel measurably placed on the collector's CPU
//     (select_task_rq_fair's wake-affine choice against an idle sibling).
//   - Preemption. By the model's own rule a worker woken onto the
//     collector's core goes ahead of the collector: a running collector
//     yields at the end of its current burst and resumes only after every
//     worker woken onto its core meanwhile has run; a queued one lets
//     them pass (wakeup preemption, kernel/sched/fair.c:
//     check_preempt_wakeup_fair). That is what one core measurably does:
//     the woken workers preempt the collector about twice per broadcast
//     and make the whole herd. A Shape's Kernel can give instead no
//     wake-up preemption (the woken queue behind the collector until it
//     blocks), or the preemptions measured per collection, spread over
//     the broadcasts.
//   - Barging. On more cores than one the herd is cut by the normal
//     mutex: a worker woken on another core re-takes the mutex only
//     after its wake-to-run, and the collector, between two enqueue
//     calls, frees it only for the part of a call outside the mutex (the
//     re-lock interval, Enqueue − Push); a waiter that comes later finds
//     it held and sleeps on it, and a thread asleep on the mutex is no
//     condition waiter, so the next broadcasts do not wake it. Each
//     contended release wakes one sleeper, which again wins only if its
//     wake-to-run is shorter than the re-lock interval: how often turns
//     on the distribution's lower part, which is why the model draws from
//     it rather than taking its median.
//   - The mutex. Either kind's fast path is a compare-and-swap, so a
//     running thread takes a free mutex at once. Normal is glibc's
//     lowlevellock (Drepper's mutex 3): a thread that finds it held marks it
//     contended and sleeps; the release of a contended lock frees it and
//     makes a wake call for the longest sleeper, which tries again when it
//     runs, and a running thread may barge in first. PI
//     (PTHREAD_PRIO_INHERIT, mono's kind on Linux): a thread that finds it
//     held waits in FUTEX_LOCK_PI, in the kernel's rt_mutex; a release
//     with a waiter (FUTEX_UNLOCK_PI) makes the longest waiter its owner,
//     so the mutex stays held until that thread has run, spent HandOff
//     and released it: no barging, and a collector whose next enqueue
//     finds woken workers queued on the lock waits behind all of them.
//     The waiter sleeps, and the release wakes it (one wake and one
//     scheduling per hand-off), except the top waiter while the owner
//     runs on another core: it spins on its own (rtmutex_spin_on_owner,
//     kernel/locking/rtmutex.c), and takes the mutex within the release
//     call, until the owner leaves its core or a thread woken onto the
//     waiter's core preempts it.
//   - The condition variable (glibc's, nptl/pthread_cond_wait.c and
//     pthread_cond_broadcast.c). A broadcast with no waiter left to signal
//     makes no system call; otherwise one futex call wakes every waiter
//     not yet signalled. A woken waiter re-takes the mutex itself
//     (__pthread_mutex_cond_lock: a normal mutex marked contended, a PI one
//     through the PI path). A waiter signalled on its way into the kernel
//     goes round again at once.
//   - The pool (workerpool/internal/native/pool.c). Broadcast under the
//     mutex at every enqueue call and at Start; StartBatch's after the
//     unlock. A worker holding the mutex takes one job if the gate is open
//     and one is queued (Take/2), releases the mutex, runs the job, takes
//     the mutex to retire it (Take/2), signals done_cond if the collector
//     is in Join and, still holding the mutex, looks for the next: one hold
//     per job, as SGen's thread_func relocks after job->func, marks the
//     job done, signals done_cond and loops back to get_work without
//     unlocking (mono/sgen/sgen-thread-pool.c). Finding nothing, it
//     waits: a futile wake-up
//     if it had just woken, Futile of CPU in all (the look and the
//     mutex's release included, as Calibrate measures it). Join takes the
//     mutex, returns if every job is retired (and closes the gate), else
//     waits on done_cond, and every retire while it waits wakes it to look
//     again.
//   - Jobs. Each job costs the time it took in a serial collection of the
//     same heap (Work), whatever runs beside it: no memory-bandwidth or
//     cache contention is modelled. Predict simulates one collection per
//     serial collection measured, with its own job costs, and reports
//     their mean.
//
// The costs come only from microbenchmarks of the Native pool on this
// host, for the mutex kind simulated (Calibrate): the one-way latency of
// waking a sleeping worker onto an idle core, the waker's CPU per wake
// call, per thread woken onto its own core and per idle core woken, the
// CPU a futile wake-up costs the worker in gated rounds (PI hand-offs
// included), the enqueuer's CPU per call and per job pushed, a worker's
// CPU per job, and, for PI, what a hand-off costs beyond its wake call
// (solved for with the hand-offs the model makes of rounds of synthetic
// jobs on one CPU, against the same rounds on a normal mutex); each the
// median of several runs. A single call is timed by the thread's CPU
// clock, a system call on Linux, so the clock's own cost is taken out,
// and a wake call is solved for with the number of calls the enqueue
// made. The tick's period is the coarse clock's resolution. sysmon's
// interval between looks and the Go runtime's CPU per look come from
// rounds of Go callbacks with the whole process on one CPU
// (measureRuntime). A host that
// lets the process run on one CPU only cannot measure a wake onto another
// core: WakeToRun and WakeIdle are then 0.
//
// The model leaves out: time slices and the rest of the scheduler's
// fairness beyond the preemption rules above (a Kernel's measured
// preemptions stand for them where they are measured); the load
// balancer's weighing of load averages, and which of its two rules above
// holds in a given collection (the newly-idle balance's dice: check 3
// takes both as bounds); the Go runtime, whose
// callbacks run each job, beyond a bound (a job's cost includes its
// callback; which workers' Ps sysmon takes, and when, is not followed:
// Kernel.Sysmon charges sysmon's looks at its shortest sleep through a
// whole collection, and check 3 takes that and none as bounds; the Go
// backends, where the runtime stands between a wake and the woken, are
// measured beside the check, not modelled); the kernel's PI boosting, which does
// not change the order of threads of equal priority; spinning in user
// space (glibc's normal mutex does none); and memory effects of parallel
// scans.
package pausemodel
