package workerpool

import "sync/atomic"

// Stats are the pool's cumulative counters since New. Every field is exact:
// each event is counted once, by the goroutine that caused it, with an
// atomic add to a per-worker, enqueue-side or coordinator counter set (see
// counters), and Stats sums the sets on read.
// A snapshot taken while the pool works is a consistent sum of per-counter
// values but not an atomic cut across counters.
type Stats struct {
	// EnqueueLockAcquisitions counts lock acquisitions by Enqueue,
	// EnqueueFunc, EnqueueBatch and StartBatch. Shared queue: one per call
	// that reached the queue, except Enqueue and EnqueueFunc on an ungated
	// Targeted pool, which take it only to wake a parked worker or to
	// make room in its full lock-free front. Sharded: one shard lock per
	// call, plus one of the pool lock when a sleeping worker had to be
	// woken.
	EnqueueLockAcquisitions uint64
	// LockAcquisitions counts every lock acquisition — the queue lock, and
	// a sharded pool's shard locks — by the enqueue side, workers, Start,
	// Join, Discard and Close.
	LockAcquisitions uint64
	// EnqueueWakeCalls counts wake operations made by Enqueue, EnqueueFunc,
	// EnqueueBatch and StartBatch (on the shared queue, StartBatch's one
	// wake for the gate too): one broadcast or signal call (Broadcast,
	// Signal), one handoff and/or semaphore release (Spin) or one targeted
	// unpark (Targeted). On the Threads backend each such call makes at
	// most one futex wake.
	EnqueueWakeCalls uint64
	// WakeCalls counts every wake operation aimed at workers, including
	// those of Start, Close and chained wakes by workers. Wakes of goroutines
	// waiting in Join are not counted here (they are in FutexCalls).
	WakeCalls uint64
	// WorkersWoken counts the times a waiting worker resumed after a wake
	// (for Spin, also when a spinning worker took a release).
	WorkersWoken uint64
	// FutileWakeups counts wake-ups that found no job the worker may run:
	// the queue was empty or the gate closed.
	FutileWakeups uint64
	// FutexCalls counts futex system calls by every goroutine and thread
	// using the pool (Threads backend; always 0 on Goroutines; not counted
	// on Native, see FutexUncounted).
	FutexCalls uint64
	// FutexUncounted is true for the Native backend, whose futex calls
	// glibc makes inside pthread calls: FutexCalls is then 0 and means "not
	// counted", not "none".
	FutexUncounted bool
	// Grabs counts the times jobs were taken from the queue for a worker,
	// 1 to MaxGrab at a time under one lock acquisition: by the worker, or
	// by an enqueuer handing them to a Spin listener (Handoffs).
	// TotalJobsRun()/Grabs is the mean grab size.
	Grabs uint64
	// Steals counts the grabs a worker of a Sharded pool took from another
	// worker's shard (included in Grabs).
	Steals uint64
	// GrabSteals counts the grabs an idle worker of an ungated pool stole
	// from the unstarted jobs of another worker's grab (included in
	// Grabs).
	GrabSteals uint64
	// SpinWakeups counts the Spin policy's wake-ups that needed no sleep:
	// a semaphore unit taken while spinning or found waiting, or a grab
	// handed to the listening worker — no park, no system call (included
	// in WorkersWoken).
	SpinWakeups uint64
	// Handoffs counts the grabs an enqueuer (or Start) took for the Spin
	// policy's listening spinner and handed to it directly (included in
	// Grabs and SpinWakeups).
	Handoffs uint64
	// JoinSpins counts the Joins that found their jobs done while polling
	// before sleeping (see Join); JoinSleeps counts the sleeps of Joins
	// that had to wait longer, or could not spin.
	JoinSpins, JoinSleeps uint64
	// HandoffSleeps counts the waits of Threads workers and Joins that went
	// into the kernel (made a futex call; a wait whose wake-up had already
	// come makes none) while GOMAXPROCS was below Workers+1, each when it
	// ends. In that regime the threads that sleep in futex calls and the
	// goroutines they serve cannot all keep a P: a thread woken from its
	// futex may wait for the runtime to hand it one (sysmon retakes the P
	// of a thread blocked in a system call after 20 µs or more), so each
	// such sleep can cost tens of microseconds. A non-zero count says: raise GOMAXPROCS to Workers+1
	// or more, or use fewer workers. Always 0 on Goroutines.
	HandoffSleeps uint64
	// JobsRun[i] counts the jobs worker i has run (not those it skipped:
	// see Dropped).
	JobsRun []uint64
	// Kernel is what the kernel tells of the Native backend's threads;
	// other backends count none of it.
	Kernel KernelStats

	// The gauges an operator reads. Like the counters they are kept where
	// the events happen (the queue's own sequence numbers, each worker's
	// counters) and summed on read, so they cost the hot path nothing.
	// The Native backend fills none of them.

	// Submitted counts the jobs accepted since New.
	Submitted uint64
	// Queued is how many accepted jobs no worker has taken yet (the
	// unstarted jobs of a worker's grab are taken, not queued).
	Queued uint64
	// Waiting is how many accepted jobs have not started: Queued, plus
	// the jobs workers have taken and not yet claimed to run (on an
	// ungated pool; a gated pool's grabs run where they are). Every job
	// accepted and not started counts against Options.MaxQueued.
	Waiting uint64
	// Running is how many workers are running a grab of jobs now.
	Running uint64
	// Completed counts the jobs that ran to the end, returned an error or
	// panicked: TotalJobsRun().
	Completed uint64
	// Failed counts the jobs of groups and Map that returned an error.
	Failed uint64
	// Panicked counts the jobs that panicked or called runtime.Goexit.
	Panicked uint64
	// Dropped counts the accepted jobs that never ran: removed by Discard
	// or Shutdown, or skipped by a worker because their group's context
	// had ended (counted once their grab is done; the group's Wait reports
	// them too, to that group).
	Dropped uint64
}

// KernelStats are the Native backend's observations of its threads
// through the kernel, cumulative like Stats. The other backends leave
// them zero with WakeCPUsCounted false: there the zeros mean "not
// counted", not "none".
type KernelStats struct {
	// WakeCPUsCounted is true on the Native backend, whose workers
	// classify each wake-up (WorkersWoken) by the CPU they woke on
	// (sched_getcpu(3) after the wait on the work condition variable
	// returns) against the CPU the waker — the thread of the last enqueue
	// or gate opening — was on at its wake call: WakeupsOnWakerCPU,
	// WakeupsElsewhere, or, where either CPU was unknown,
	// WakeupsUnclassified. The three add up to WorkersWoken.
	WakeCPUsCounted                                          bool
	WakeupsOnWakerCPU, WakeupsElsewhere, WakeupsUnclassified uint64
	// Snapshots counts the gate openings (Start, StartBatch) at which the
	// pool read every worker's state (Options.KernelSnapshot): from
	// /proc/self/task/TID/stat, runnable (state R) on the opener's CPU or
	// elsewhere (field 39, the CPU it last ran on), else, from
	// /proc/self/task/TID/syscall, asleep in a futex call on the pool's
	// mutex or on its work condition variable (proc(5)). A worker in none
	// of these is in no count. SnapshotsFailed counts the openings at
	// which a read failed (a file missing, EACCES): they add nothing to
	// the four counts.
	Snapshots, SnapshotsFailed            uint64
	RunnableOnWakerCPU, RunnableElsewhere uint64
	AsleepOnMutex, AsleepOnWorkCond       uint64
}

// Sub returns k − prev, counter by counter; WakeCPUsCounted is true when
// both are.
func (k KernelStats) Sub(prev KernelStats) KernelStats {
	return KernelStats{
		WakeCPUsCounted:     k.WakeCPUsCounted && prev.WakeCPUsCounted,
		WakeupsOnWakerCPU:   k.WakeupsOnWakerCPU - prev.WakeupsOnWakerCPU,
		WakeupsElsewhere:    k.WakeupsElsewhere - prev.WakeupsElsewhere,
		WakeupsUnclassified: k.WakeupsUnclassified - prev.WakeupsUnclassified,
		Snapshots:           k.Snapshots - prev.Snapshots,
		SnapshotsFailed:     k.SnapshotsFailed - prev.SnapshotsFailed,
		RunnableOnWakerCPU:  k.RunnableOnWakerCPU - prev.RunnableOnWakerCPU,
		RunnableElsewhere:   k.RunnableElsewhere - prev.RunnableElsewhere,
		AsleepOnMutex:       k.AsleepOnMutex - prev.AsleepOnMutex,
		AsleepOnWorkCond:    k.AsleepOnWorkCond - prev.AsleepOnWorkCond,
	}
}

// TotalJobsRun returns the sum of JobsRun.
func (s Stats) TotalJobsRun() uint64 {
	var n uint64
	for _, j := range s.JobsRun {
		n += j
	}
	return n
}

// Sub returns s − prev field by field: the cost of what happened between
// two snapshots of the same pool. The instant gauges, Queued, Waiting and
// Running, are s's.
func (s Stats) Sub(prev Stats) Stats {
	d := Stats{
		EnqueueLockAcquisitions: s.EnqueueLockAcquisitions - prev.EnqueueLockAcquisitions,
		LockAcquisitions:        s.LockAcquisitions - prev.LockAcquisitions,
		EnqueueWakeCalls:        s.EnqueueWakeCalls - prev.EnqueueWakeCalls,
		WakeCalls:               s.WakeCalls - prev.WakeCalls,
		WorkersWoken:            s.WorkersWoken - prev.WorkersWoken,
		FutileWakeups:           s.FutileWakeups - prev.FutileWakeups,
		FutexCalls:              s.FutexCalls - prev.FutexCalls,
		FutexUncounted:          s.FutexUncounted || prev.FutexUncounted,
		Grabs:                   s.Grabs - prev.Grabs,
		SpinWakeups:             s.SpinWakeups - prev.SpinWakeups,
		Handoffs:                s.Handoffs - prev.Handoffs,
		JoinSpins:               s.JoinSpins - prev.JoinSpins,
		JoinSleeps:              s.JoinSleeps - prev.JoinSleeps,
		HandoffSleeps:           s.HandoffSleeps - prev.HandoffSleeps,
		Steals:                  s.Steals - prev.Steals,
		Submitted:               s.Submitted - prev.Submitted,
		Queued:                  s.Queued,
		Waiting:                 s.Waiting,
		Running:                 s.Running,
		Completed:               s.Completed - prev.Completed,
		Failed:                  s.Failed - prev.Failed,
		Panicked:                s.Panicked - prev.Panicked,
		Dropped:                 s.Dropped - prev.Dropped,
		GrabSteals:              s.GrabSteals - prev.GrabSteals,
		JobsRun:                 make([]uint64, len(s.JobsRun)),
		Kernel:                  s.Kernel.Sub(prev.Kernel),
	}
	for i := range d.JobsRun {
		d.JobsRun[i] = s.JobsRun[i]
		if i < len(prev.JobsRun) {
			d.JobsRun[i] -= prev.JobsRun[i]
		}
	}
	return d
}

// cacheLine is the padding unit that keeps one writer's counters off every
// other writer's cache line (128 covers adjacent-line prefetch on x86).
const cacheLine = 128

// counters is one writer's set of counters. Each set has a single writer at
// a time — a worker, or whoever holds the queue lock for the enqueue set —
// or, for the rarely used coordinator set, atomic adds; the atomics let
// Stats read without taking any lock.
type counters struct {
	locks, wakeCalls, woken, futile, futex, jobs, grabs atomic.Uint64
	spinWakes, handoffs, joinSpins, joinSleeps          atomic.Uint64
	handoffSleeps, steals, grabSteals, failed, panicked atomic.Uint64
	// 16 counters fill the line exactly (a trailing zero-size pad would
	// add a word): TestWorkerLayout checks it.
}

func (c *counters) addFutex(n int) {
	if n != 0 {
		c.futex.Add(uint64(n))
	}
}

func (c *counters) addTo(s *Stats) {
	s.LockAcquisitions += c.locks.Load()
	s.WakeCalls += c.wakeCalls.Load()
	s.WorkersWoken += c.woken.Load()
	s.FutileWakeups += c.futile.Load()
	s.FutexCalls += c.futex.Load()
	s.Grabs += c.grabs.Load()
	s.SpinWakeups += c.spinWakes.Load()
	s.Handoffs += c.handoffs.Load()
	s.JoinSpins += c.joinSpins.Load()
	s.JoinSleeps += c.joinSleeps.Load()
	s.HandoffSleeps += c.handoffSleeps.Load()
	s.Steals += c.steals.Load()
	s.GrabSteals += c.grabSteals.Load()
	s.Failed += c.failed.Load()
	s.Panicked += c.panicked.Load()
}

// Stats returns the pool's counters. It takes no lock and may be called at
// any time, also after Close (and on a Pool not made by New: all zero).
func (p *Pool) Stats() Stats {
	if p == nil {
		return Stats{JobsRun: []uint64{}}
	}
	if p.nat != nil {
		return p.nat.stats()
	}
	s := Stats{
		EnqueueLockAcquisitions: p.enq.locks.Load(),
		EnqueueWakeCalls:        p.enq.wakeCalls.Load(),
		JobsRun:                 make([]uint64, len(p.workers)),
	}
	p.enq.addTo(&s)
	p.coord.addTo(&s)
	for i := range p.shards {
		c := &p.shards[i].c
		c.addTo(&s)
		s.EnqueueLockAcquisitions += c.locks.Load()
	}
	var taken uint64 // read before submitted: Queued never underflows
	if p.shards == nil {
		taken = p.popped.Load()
		s.Submitted = p.pushed.Load() + p.in.reserved()
	} else {
		for i := range p.shards {
			taken += p.shards[i].popped.Load()
		}
		for i := range p.shards {
			s.Submitted += p.shards[i].pushed.Load()
		}
	}
	s.Queued = s.Submitted - min(taken, s.Submitted)
	for i := range p.workers {
		w := &p.workers[i]
		w.c.addTo(&s)
		s.JobsRun[i] = w.c.jobs.Load()
		if w.state.Load()&runningMask != 0 {
			s.Running++
		}
	}
	s.Waiting = s.Queued + uint64(p.stealableJobs())
	s.Completed = s.TotalJobsRun()
	s.Dropped = p.dropped.Load()
	return s
}
