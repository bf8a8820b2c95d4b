package workerpool

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// Pool is a fixed set of workers serving a job queue: one shared FIFO queue
// (the default, SGen's model) or one shard per worker (Options.Queue). All
// methods are safe for concurrent use.
//
// Dispatch. The queue is a list of fixed-size blocks reused across rounds,
// so enqueuing and taking jobs do not allocate. Every job gets a sequence
// number in queue order: pushed counts jobs accepted, popped counts jobs
// taken. Enqueue takes the lock, pushes, applies the wake policy once and
// unlocks (except on an ungated Targeted pool: see Enqueue); EnqueueBatch
// does the same for n jobs: one lock acquisition, one wake decision. A
// worker holds the lock while it looks for work; if the gate is open it
// takes a grab — the oldest min(max(1, q/(2·workers)), MaxGrab) of the q
// queued jobs — releases the lock, runs the grab's jobs in order, and
// re-takes the lock once to retire the grab and take the next one. So a
// worker pays one lock acquisition per grab, not per job, when the queue
// is long, while the shares shrink as the queue drains and the last jobs
// of a round still spread over every worker (Go's runqgrab takes half of a
// run queue for one thief; here all workers share one queue, hence the
// division by the worker count). Job panics are recovered and kept for
// Join. On an ungated pool a worker that finds no queued job steals the
// newer half of the unstarted jobs of another worker's grab (steal.go), so
// no job waits behind a slow one while a worker is idle; a gated pool, the
// SGen round, never steals and keeps its counters as they were. The price
// is one uncontended atomic add per job after the first of a grab, by which
// the owner claims it (a thief may have taken it). On BenchmarkTinyTasks,
// whose jobs are empty, that is about a tenth of the CPU profile and 7–14%
// more time per job than with stealing turned off (goroutine backend,
// GOGC=off, geomean of its 8 configurations, two runs); a job that does a
// microsecond of work cannot show it. The Go runtime pays the same for
// stealing (a CAS per goroutine taken from a local run queue); claiming
// several jobs at once would let the others wait behind a slow one.
//
// Ordering. Jobs are taken in FIFO order (each grab is the oldest run of
// queued jobs) and each worker runs its grab in order, so a pool of one
// worker runs jobs in enqueue order. Grabs of different workers run
// concurrently: a job may start before an older one held by another
// worker.
//
// Invariants:
//
//  1. Exactly once: a job is accepted only inside the critical section that
//     pushes it, or by the CAS that reserves its ingress position, and
//     taken only by the grab that pops it under the lock (its shard's lock,
//     when sharded) — a worker's own grab, or one an enqueuer takes for a
//     listening Spin worker. A worker moves past a job before running it,
//     so the goroutine that replaces a worker ended by runtime.Goexit runs
//     the rest of the grab and nothing twice.
//  2. Nothing accepted is stranded. The DedicatedThreadPool seed could lose
//     an item that was accepted after its workers decided to exit; here the
//     in-flight adder count is structurally zero outside the lock, because
//     the closed check and the push are one critical section. A worker
//     exits only when, under the lock, the pool is closed (hence the gate
//     open) and the queue is empty, so every job accepted before Close is
//     run, and none is accepted after — except the jobs a caller removes on
//     purpose with Discard. (Sharded: Close passes through every shard lock
//     after closing, so no push is in flight when workers may exit.
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
//     stopped listening (the state word's CAS decides), and a listener busy
//     with a handed grab when more jobs arrive is marked pending and looks
//     under the lock next. Where a state change and a sleep are not ordered
//     by one lock — a grab retired without the lock (a handoff, a sharded
//     pool) against a sleeping Join, a sharded or lock-free push against a
//     sleeping worker — each side stores, then loads the other's word
//     (running and joinWaiters; a shard's pushed and sleepers; an ingress
//     cell's sequence number and sleepers), so at least one sees the other.
//  4. Join is exact: Join snapshots pushed as its target and waits until
//     popped ≥ target and no worker holds a grab whose oldest job is older
//     than the target. A grab is published as running (its oldest sequence
//     number, and shard) before popped moves past it, and cleared only
//     after its jobs ran and, if any panicked, after their panics were
//     kept; so doneUpTo, read without the lock, never reports a job done
//     early, and a Join that sees its jobs done also sees their panics. A
//     worker publishes a finished grab as done before it re-takes the lock;
//     the worker retiring a grab wakes the sleeping Joins only when the
//     least of their targets is reached.
//  5. Counters are exact and off the shared hot path: each worker counts in
//     its own cache-line-padded counters; the enqueue side counts under the
//     lock it holds anyway (a shard's counters under the shard's lock);
//     Start, Join, Close and the system calls an enqueuer makes after
//     unlocking count with atomic adds in a separate padded set. Stats sums
//     them without locking.
//
// A Pool must be made by New. The zero Pool and a nil *Pool have no workers
// and never panic: Enqueue, EnqueueFunc, EnqueueBatch, StartBatch,
// TryEnqueue, EnqueueCtx, EnqueueBatchCtx, Join, Shutdown and Close return
// ErrNotInitialized (so does the Wait of a group with jobs, and Map), Start
// does nothing, Discard and Workers return 0, Options returns the zero
// Options and Stats returns zero counters.
type Pool struct {
	opts    Options
	obs     Observer
	kit     kit
	mu      mutex   // the queue lock
	work    condVar // workers wait here (Broadcast, Signal)
	done    condVar // Join waits here
	sema    *unfairSema
	workers []worker
	shards  []shard     // Sharded: one per worker; nil for the shared queue
	in      *ingress    // ungated Targeted on the shared queue: Enqueue's lock-free front; else nil
	nat     *nativePool // the Native backend, which serves every method; nil on the others
	steal   bool        // ungated: idle workers steal from grabs (steal.go)
	room    *room       // Options.MaxQueued > 0: the bound; else nil

	// Read without the lock on hot paths, written rarely: off the lines of
	// the lock-guarded state and of the wake bookkeeping below, which are
	// written all the time.
	_           [cacheLine]byte
	procs       atomic.Int32 // GOMAXPROCS as last read by a worker or Join about to sleep
	gateOpen    atomic.Bool  // written under mu
	closed      atomic.Bool  // written under mu
	sealed      atomic.Bool  // closed, and no push in flight: workers may exit on empty queues
	sleepers    atomic.Int32 // workers a lock-free enqueuer must wake: sharded, about to sleep or asleep under mu; with an ingress, len(idle)
	joinWaiters atomic.Int32 // Join calls asleep on done; written under mu
	_           [cacheLine]byte

	// Wake bookkeeping that sharded enqueuers and spinning workers read and
	// write without the lock.
	outstanding atomic.Int32 // Spin: units released by enqueues and not yet taken
	waking      atomic.Int32 // Targeted: unparked workers not yet back under mu; written under mu
	spin        spinBudget   // Spin: free spinner slots
	_           [cacheLine]byte

	// Guarded by mu. pushed, popped and npanics are atomics so that Join can
	// poll them without the lock; only holders of mu write them.
	q              fifo
	pushed, popped atomic.Uint64 // jobs accepted / taken by workers, ever
	npanics        atomic.Int32  // len(panics) + lostPanics
	joining        int           // Join calls in progress
	joinTarget     uint64        // least target of a sleeping Join; MaxUint64 if none
	parked         int           // workers inside waitLocked (tests wait on it)
	idle           []int         // Targeted: parked workers, most recent last
	spinner        int           // Spin: the worker listening for handoffs, or -1
	sleepingVecs   [][]uint64    // sharded: the targets of sleeping Joins
	freeVecs       [][]uint64    // sharded: target vectors for reuse
	panics         []error
	tracked        atomic.Bool   // a group's or Map's job was ever queued: Discard tells each dropped one
	dropped        atomic.Uint64 // jobs removed by Discard and Shutdown
	retiredThreads []int         // threads of workers ended by runtime.Goexit
	lostPanics     int

	enq   counters // the enqueue side, under mu (sharded Spin adds its wake calls atomically)
	coord counters // Start, Join, Close and post-unlock work of enqueuers; atomic adds

	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// worker is one worker's private state. Its counters fill the first cache
// line, its own bookkeeping the second. The third, the handoff line, holds
// what another goroutine reads or writes: state (the running grab, and the
// Spin handoff protocol) and the first jobs of the grab, so that handing a
// spinning worker a job, and its completion that a Join polls for, move a
// single cache line between the CPUs.
type worker struct {
	c      counters
	id     int
	tid    atomic.Int64  // OS thread id (Threads); a Goexit replaces it
	park   parker        // Targeted
	panics []*PanicError // panics of the current grab, kept for Join when it is retired
	// spunOut: w stopped listening for handoffs because none came within
	// spinFor; its next wait sleeps on the semaphore without spinning
	// (Spin).
	spunOut bool
	// goexitReported: the job ending this goroutine with runtime.Goexit
	// was a group's, which reported it to its group (Group.call); the
	// worker that replaces the goroutine does not report it to Join.
	goexitReported bool
	held           []jobs.Job // the current grab, oldest first: buf[:n]
	next           int        // held[next:] have not started
	// skipped counts the jobs of the current grab that a cancelled group
	// skipped unrun (Group.run): publishGrab counts them as dropped, not
	// as run.
	skipped int
	// claim says which jobs of the grab are w's and which a thief took
	// (ungated pools; see steal.go). Written by w per job, by thieves
	// rarely: on this line, not on the handoff line that Joins poll.
	claim atomic.Uint64
	_     [cacheLine - 112]byte

	// The handoff line. state is running — 1 + the sequence number of the
	// oldest job of the current grab, 0 between grabs, which Join reads —
	// and, while w listens for handoffs, the mail bits (see handoff.go).
	// Outside listen only w writes it.
	state atomic.Uint64
	buf   [MaxGrab]jobs.Job
	_     [cacheLine - 8]byte // keeps the next worker's counters off buf's last line
}

// maxKeptPanics bounds the panic errors a pool keeps between two Joins.
const maxKeptPanics = 64

// New starts a pool of opts.Workers workers (GOMAXPROCS for 0). It returns an error wrapping
// ErrInvalidOptions for bad options and one wrapping ErrUnsupported when the
// backend does not exist on this system. The pool runs until Close.
//
// The Threads backend depends on GOMAXPROCS: its workers sleep in futex
// calls, and a thread woken from one needs a P to run Go code. With
// GOMAXPROCS ≥ Workers+1 each keeps one and a wake-up costs a few
// microseconds; below that, a woken worker may wait for the runtime to hand
// it a P, tens of microseconds per wake-up. Stats.HandoffSleeps counts the
// sleeps made in that slow regime; raise GOMAXPROCS (or use Spin, whose
// listener keeps its P while work keeps coming) when latency matters.
func New(opts Options) (*Pool, error) { return start(opts, ingressCells) }

// start is New with an ingress of cells cells, if the pool has one (tests
// shrink it to reach its full path).
func start(opts Options, cells int) (*Pool, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts = opts.resolved()
	if opts.Backend == Native {
		n, err := newNative(opts)
		if err != nil {
			return nil, err
		}
		return &Pool{opts: opts, nat: n}, nil
	}
	var k kit = goKit{}
	if opts.Backend == Threads {
		var err error
		if k, err = newThreadKit(); err != nil {
			return nil, err
		}
	}
	p := build(opts, k, cells)
	p.wg.Add(opts.Workers)
	for i := range p.workers {
		w := &p.workers[i]
		k.startWorker(func() { p.serve(w, false, nil) }, &w.tid)
	}
	return p, nil
}

// build makes a pool for valid opts without starting its workers; an
// ungated Targeted pool on the shared queue gets an ingress of cells cells.
func build(opts Options, k kit, cells int) *Pool {
	p := &Pool{
		opts:       opts,
		obs:        opts.Observer,
		kit:        k,
		workers:    make([]worker, opts.Workers),
		joinTarget: math.MaxUint64,
		spinner:    -1,
	}
	p.gateOpen.Store(!opts.Gated)
	p.steal = !opts.Gated
	if opts.MaxQueued > 0 {
		p.room = newRoom(opts.MaxQueued)
	}
	p.procs.Store(int32(runtime.GOMAXPROCS(0)))
	p.spin.free.Store(p.procs.Load() - 1)
	p.mu = k.newMutex()
	if opts.Queue == Sharded {
		p.shards = make([]shard, opts.Workers)
		for i := range p.shards {
			p.shards[i].mu = k.newMutex()
		}
	}
	p.work = k.newCond(p.mu)
	p.done = k.newCond(p.mu)
	switch opts.Wake {
	case Targeted:
		p.idle = make([]int, 0, opts.Workers)
		for i := range p.workers {
			p.workers[i].park = k.newParker()
		}
		if opts.Queue == Shared && !opts.Gated {
			p.in = newIngress(cells)
		}
	case Spin:
		p.sema = newUnfairSema(k, opts.Workers, &p.spin)
	}
	for i := range p.workers {
		w := &p.workers[i]
		w.id = i
		w.held = w.buf[:0]
	}
	return p
}

// Options returns the options the pool runs with, its defaults resolved:
// Workers is never 0, Wake is the policy the pool runs and ExplicitWake is
// true, so that New(p.Options()) makes the same pool. A Pool not made by
// New returns the zero Options.
func (p *Pool) Options() Options {
	if !p.initialized() {
		return Options{}
	}
	return p.opts
}

// Workers returns the number of workers (0 for a Pool not made by New).
func (p *Pool) Workers() int {
	if p == nil {
		return 0
	}
	return p.opts.Workers
}

// ThreadIDs returns the OS thread ids of a Threads or Native pool's
// workers, in worker order, so that a caller can pin them (sched_setaffinity), watch
// them in top -H or read their CPU clocks; nil for the other backends and
// for a closed pool. A job that ends its goroutine with runtime.Goexit
// takes its thread with it: its worker continues on a new thread, whose
// id a later call returns.
func (p *Pool) ThreadIDs() []int {
	if !p.initialized() || p.closed.Load() {
		return nil
	}
	if p.nat != nil {
		return p.nat.c.ThreadIDs()
	}
	var ids []int
	for i := range p.workers {
		if tid := p.workers[i].tid.Load(); tid != 0 {
			ids = append(ids, int(tid))
		}
	}
	return ids
}

// initialized reports whether New made p: its queue lock exists.
func (p *Pool) initialized() bool { return p != nil && (p.mu != nil || p.nat != nil) }

// deferredWake is a wake decided under the queue lock and made after it is
// released, so that the woken worker does not immediately block on the lock
// its waker still holds.
type deferredWake struct {
	unpark  int // worker to unpark, or -1
	release int // Spin units to release
	cond    int // waiters to wake on the work condition (wakeAll: every one)
}

var noWake = deferredWake{unpark: -1}

func (p *Pool) wakeAfterUnlock(d deferredWake, c *counters) {
	if d.cond > 0 {
		c.addFutex(p.work.wake(d.cond))
	}
	if d.unpark >= 0 {
		c.addFutex(p.workers[d.unpark].park.unpark())
	}
	if d.release > 0 {
		c.addFutex(p.sema.release(d.release))
	}
}

// lock and unlock take the queue lock for a caller whose counters are c.
func (p *Pool) lock(c *counters) {
	n := p.mu.lock()
	c.locks.Add(1)
	c.addFutex(n)
}

func (p *Pool) unlock(c *counters) { c.addFutex(p.mu.unlock()) }

// Enqueue queues one job: one lock acquisition and one wake decision per
// call — except on an ungated Targeted pool with the shared queue, where it
// takes no lock unless a parked worker must be woken (below). It returns
// ErrClosed after Close and ErrNilJob for a nil job. It allocates nothing
// beyond the queue's occasional growth; whether making the jobs.Job value
// allocates depends on its type (below).
//
// Lock-free enqueue. An ungated Targeted pool on the shared queue puts an
// ingress in front of its queue: 1024 cells after Dmitry Vyukov's bounded
// MPMC queue, whose one consumer is whoever holds the queue lock. Enqueue
// reserves a position with one CAS and publishes its job in the position's
// cell without taking the lock; a worker, under the lock, takes its grab
// from the queue's blocks while they hold jobs (they are older) and
// otherwise straight from the cells. Enqueue takes the lock only to wake a
// parked worker when none is already on its way — the Targeted rule then
// applies as after a locked enqueue — or to move the jobs of a full
// ingress to the blocks. With one fast submitter the lock was the
// bottleneck: each enqueue took it, and workers coming back for a grab
// queued behind the submitter. The order stays FIFO, Join's sequence
// numbers stay exact, and Close refuses every later reservation at once
// (ingress.go). EnqueueBatch, gated pools and the other policies keep the
// locked path, so SGen's per-job protocol — lock, push, wake under the
// lock — is what gcsim measures (its pools are gated).
//
// Submitting without allocating. The queue stores jobs.Job interface
// values in blocks reused from round to round, so Enqueue, EnqueueFunc,
// EnqueueBatch and StartBatch allocate nothing per job once the queue has
// grown to the largest backlog. What a submission costs in allocations is
// decided by making the job value, before the call (TestSubmitFormsAllocate
// measures each form with testing.AllocsPerRun):
//
//   - no allocation: a pointer (p.Enqueue(&job)), a struct or array holding
//     only a pointer, a func value that is not a new closure
//     (p.EnqueueFunc(run) for a top-level function or a func built once and
//     reused), a batch slice reused across calls;
//   - one allocation per job: a closure created per job that captures
//     variables (p.EnqueueFunc(func(int) { use(i) })), a method value
//     (p.EnqueueFunc(job.Run)), and any other non-pointer value converted
//     to jobs.Job (a struct of two words is copied to the heap).
//
// For many small jobs, keep the per-job state in a slice and enqueue
// pointers to its elements, or one job per range of it.
func (p *Pool) Enqueue(j jobs.Job) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if isNil(j) {
		return ErrNilJob
	}
	if p.nat != nil {
		return p.nat.enqueue(j, nil, false)
	}
	if p.room != nil {
		if err := p.room.reserve(context.Background(), 1); err != nil {
			return err
		}
		return p.enqueueReserved(j)
	}
	return p.enqueueOne(j)
}

// enqueueOne is Enqueue for a valid j on a Go backend, its place in a
// bounded queue reserved.
func (p *Pool) enqueueOne(j jobs.Job) error {
	if p.shards != nil {
		return p.pushSharded(j, nil)
	}
	if p.in != nil {
		return p.pushIngress(j)
	}
	p.lock(&p.enq)
	if p.closed.Load() {
		p.unlock(&p.coord)
		return ErrClosed
	}
	p.q.push(j)
	p.pushed.Add(1)
	d := p.wakeLocked(1, &p.enq)
	p.unlock(&p.coord) // p.enq is ours only while we hold mu
	p.wakeAfterUnlock(d, &p.coord)
	if p.obs != nil {
		p.obs.Enqueued(1)
	}
	return nil
}

// EnqueueFunc queues f as one job: Enqueue(jobs.Func(f)), with the same
// cost and errors, and ErrNilJob for a nil f. It stores the func value
// itself and allocates nothing; a closure that captures variables was
// allocated when it was created (see Enqueue).
func (p *Pool) EnqueueFunc(f func(worker int)) error {
	if p.initialized() && f == nil {
		return ErrNilJob
	}
	return p.Enqueue(jobs.Func(f))
}

// isNil reports whether j is no job: nil, or a nil jobs.Func, which would
// only panic when a worker ran it.
func isNil(j jobs.Job) bool {
	f, isFunc := j.(jobs.Func)
	return j == nil || isFunc && f == nil
}

// EnqueueBatch queues every job of js, in order, under one lock acquisition
// and with one wake decision for the whole batch. The pool copies the job
// values into its own storage: the caller may reuse js when it returns. It
// returns ErrClosed after Close and ErrNilJob, queuing nothing, if any job
// is nil. An empty batch is a no-op (ErrClosed after Close).
func (p *Pool) EnqueueBatch(js []jobs.Job) error {
	return p.enqueueBatchCtx(context.Background(), js, false)
}

// StartBatch is EnqueueBatch followed by Start under the same lock
// acquisition: it queues every job of js and opens the gate with one wake
// decision for every queued job, as Start makes it, and makes that wake
// after releasing the lock, whatever the policy. A gated round is then one
// lock acquisition and one wake call, where EnqueueBatch then Start take
// the lock twice and, under Broadcast and Signal, wake twice, both times
// under the lock: the first wake comes behind the closed gate, so every
// worker it reaches finds nothing to do, and the workers the second one
// wakes find the lock still held by their waker. That is what SGen's fix
// still did: sgen_thread_pool_flush_deferred_jobs broadcast before
// sgen_workers_start_all_workers broadcast again (mono/mono#20634).
//
// On an ungated pool, or with the gate already open, it is EnqueueBatch;
// on a sharded queue (whose shards have their own locks), EnqueueBatch
// then Start. An empty batch just opens the gate. Its errors are
// EnqueueBatch's, and on an error the gate stays as it was.
func (p *Pool) StartBatch(js []jobs.Job) error {
	return p.enqueueBatchCtx(context.Background(), js, true)
}

// enqueueBatchCtx is EnqueueBatch (StartBatch if start), waiting for room
// in a bounded queue until ctx ends.
func (p *Pool) enqueueBatchCtx(ctx context.Context, js []jobs.Job, start bool) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	for _, j := range js {
		if isNil(j) {
			return ErrNilJob
		}
	}
	if len(js) == 0 && p.closed.Load() {
		return ErrClosed
	}
	start = start && p.opts.Gated
	if p.nat != nil {
		if len(js) == 0 && !start {
			return nil
		}
		return p.nat.enqueue(nil, js, start)
	}
	if p.room != nil && len(js) > 0 {
		if err := p.room.reserve(ctx, len(js)); err != nil {
			return err
		}
		if err := p.pushBatch(js, start); err != nil {
			p.room.release(len(js))
			return err
		}
		return nil
	}
	return p.pushBatch(js, start)
}

// pushBatch queues a valid, non-empty batch js (or opens the gate for an
// empty one) on a Go backend, its places in a bounded queue reserved.
func (p *Pool) pushBatch(js []jobs.Job, start bool) error {
	if len(js) == 0 || p.shards != nil {
		var err error
		if len(js) > 0 {
			err = p.pushSharded(nil, js)
		}
		if err == nil && start {
			p.Start()
		}
		return err
	}
	p.lock(&p.enq)
	if p.closed.Load() {
		p.unlock(&p.coord)
		return ErrClosed
	}
	p.pushed.Add(uint64(len(js))) // counted before the ingress is moved: see ingress
	if p.in != nil {
		p.in.moveAll(&p.q)
	}
	p.q.pushAll(js)
	var d deferredWake
	if start && !p.gateOpen.Load() {
		d = p.openGateDeferredLocked(&p.enq)
	} else {
		d = p.wakeLocked(len(js), &p.enq)
	}
	p.unlock(&p.coord)
	p.wakeAfterUnlock(d, &p.coord)
	if p.obs != nil {
		p.obs.Enqueued(len(js))
	}
	return nil
}

// wakeLocked applies the wake policy to n newly queued jobs. Broadcast and
// Signal wake under the lock, as SGen's pool does, and ignore the gate;
// Targeted and Spin wake nobody while the gate is closed.
func (p *Pool) wakeLocked(n int, c *counters) deferredWake {
	return p.wakeCondNow(p.decideWakeLocked(n, c), c)
}

// wakeCondNow makes d's wake on the work condition at once, under the
// lock, and leaves the rest of d for after the unlock.
func (p *Pool) wakeCondNow(d deferredWake, c *counters) deferredWake {
	if d.cond > 0 {
		c.addFutex(p.work.wake(d.cond))
		d.cond = 0
	}
	return d
}

// decideWakeLocked counts the policy's wake for n newly queued jobs and
// returns what is left to make: Broadcast's and Signal's wake on the work
// condition, Targeted's unpark, Spin's units (a hand-off to Spin's
// listener is made here).
func (p *Pool) decideWakeLocked(n int, c *counters) deferredWake {
	switch p.opts.Wake {
	case Broadcast:
		c.wakeCalls.Add(1)
		return deferredWake{unpark: -1, cond: wakeAll}
	case Signal:
		c.wakeCalls.Add(1)
		return deferredWake{unpark: -1, cond: min(n, len(p.workers))}
	case Targeted:
		return deferredWake{unpark: p.nextTargetLocked(c)}
	case Spin:
		return p.spinWakeLocked(n, c)
	}
	return noWake
}

// nextTargetLocked picks the parked worker to wake next under Targeted, or
// -1: a worker is woken only while runnable jobs outnumber the workers
// already on their way.
func (p *Pool) nextTargetLocked(c *counters) int {
	if len(p.idle) == 0 || !p.gateOpen.Load() || p.queuedLocked() <= int(p.waking.Load()) {
		return -1
	}
	id := p.idle[len(p.idle)-1]
	p.idle = p.idle[:len(p.idle)-1]
	if p.in != nil {
		p.sleepers.Add(-1)
	}
	p.waking.Add(1)
	c.wakeCalls.Add(1)
	return id
}

// spinWakeLocked is the Spin policy's wake for n newly runnable jobs: a
// grab handed to the listening spinner, if any, and units of the semaphore
// for the rest — at most one per worker outstanding (the CLR thread pool's
// cap on outstanding requests). It is one wake call, counted once, and
// does nothing while the gate is closed.
func (p *Pool) spinWakeLocked(n int, c *counters) deferredWake {
	if !p.gateOpen.Load() {
		return noWake
	}
	handed := p.handOffLocked(c)
	d := noWake
	d.release = p.reserveUnits(min(n, p.queuedLocked()))
	if handed || d.release > 0 {
		c.wakeCalls.Add(1)
	}
	return d
}

// queuedLocked returns how many jobs are queued: the shared queue's length
// (with its ingress's positions, a job still being written included), or
// the sum over the shards (read without their locks).
func (p *Pool) queuedLocked() int {
	if p.shards != nil {
		return p.queuedSharded()
	}
	if p.in != nil {
		return p.q.len() + p.in.queued()
	}
	return p.q.len()
}

// hasWorkLocked reports whether a worker could take a job now.
func (p *Pool) hasWorkLocked() bool {
	return p.gateOpen.Load() && p.queuedLocked() > 0
}

// reserveUnits reserves up to n Spin units, at most one per worker
// outstanding (the CLR thread pool's cap on outstanding requests), and
// returns how many it reserved. A CAS loop, so that sharded enqueuers can
// reserve without the lock.
func (p *Pool) reserveUnits(n int) int {
	for {
		out := p.outstanding.Load()
		k := min(int32(n), int32(len(p.workers))-out)
		if k <= 0 {
			return 0
		}
		if p.outstanding.CompareAndSwap(out, out+k) {
			return int(k)
		}
	}
}

// retireUnit retires a Spin unit that a worker took, after which it looks
// for work: Close releases units it did not reserve, hence the floor.
func (p *Pool) retireUnit() {
	for {
		out := p.outstanding.Load()
		if out <= 0 || p.outstanding.CompareAndSwap(out, out-1) {
			return
		}
	}
}

// Start opens the gate of a gated pool, letting workers take the queued
// jobs, and wakes workers for them with one wake call. It does nothing on an
// ungated pool or when the gate is already open.
func (p *Pool) Start() {
	if !p.initialized() || !p.opts.Gated {
		return
	}
	if p.nat != nil {
		p.nat.c.Start()
		return
	}
	p.lock(&p.coord)
	d := p.openGateLocked(&p.coord)
	p.unlock(&p.coord)
	p.wakeAfterUnlock(d, &p.coord)
}

// openGateLocked opens the gate and applies the wake policy to every queued
// job, as if they had just been enqueued; only Signal, which would
// otherwise count a wake call for nobody, skips an empty queue.
func (p *Pool) openGateLocked(c *counters) deferredWake {
	return p.wakeCondNow(p.openGateDeferredLocked(c), c)
}

// openGateDeferredLocked is openGateLocked with the whole wake left for
// after the unlock: Broadcast's and Signal's too, which wake under the lock
// elsewhere (SGen's protocol). StartBatch wakes so.
func (p *Pool) openGateDeferredLocked(c *counters) deferredWake {
	if p.gateOpen.Load() {
		return noWake
	}
	p.gateOpen.Store(true)
	q := p.queuedLocked()
	if p.opts.Wake == Signal && q == 0 {
		return noWake
	}
	return p.decideWakeLocked(q, c)
}

// Close shuts the pool down gracefully: it refuses new jobs (Enqueue,
// EnqueueFunc, EnqueueBatch and StartBatch return ErrClosed), opens the
// gate, lets the workers run every accepted job, and returns once every
// worker has exited — for Threads, once every worker's OS thread is gone.
// It returns the panics of jobs that no Join collected (a group's panics
// are its Wait's), as Join would have reported them. Close is idempotent;
// every call returns the first call's result.
//
// A job must not call Close, nor Shutdown with a context of its own: it
// would wait for its own worker to exit. Go has no goroutine identity, so
// Close cannot tell such a call; Shutdown, Join and a group's WaitCtx given
// the context a group's job received return ErrCalledFromJob instead. The
// Native backend can tell its own worker threads: there Close, Shutdown
// and Join called inside a job return ErrCalledFromJob, and a later Close
// from outside still closes.
func (p *Pool) Close() error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if p.nat != nil && p.nat.calledFromJob() { // before the once: a later Close must still close
		return fmt.Errorf("workerpool: close: %w", ErrCalledFromJob)
	}
	p.closeOnce.Do(func() { p.closeErr = p.shutdown() })
	return p.closeErr
}

// Discard removes every job still queued — accepted, not yet started by a
// worker — and returns how many it removed. On an ungated pool that
// includes the unstarted jobs of the workers' grabs; on a gated pool (the
// SGen round) those still run (at most MaxGrab per worker). Jobs already
// running finish as usual. A discarded job never runs and is not counted in
// Stats.JobsRun (Stats.Dropped counts it); Join counts it as done, so a
// Join waits only for jobs that run, and a Close after Discard waits only
// for the running ones; a discarded job of a group makes the group's Wait
// report it (ErrDropped). It is for abandoning queued work, for example
// when the caller's context ends. Without groups its time does not depend
// on the number of jobs (one lock per shard when sharded): the queue's
// storage is left to the Go collector; with groups it visits each removed
// job once to tell its group. On an ungated Targeted pool, whose Enqueue
// publishes without the lock, it waits, as EnqueueBatch does, for an
// Enqueue caught between reserving its place and publishing its job, so
// that no job accepted before it is left behind.
func (p *Pool) Discard() int {
	if !p.initialized() {
		return 0
	}
	if p.nat != nil {
		return p.nat.discard()
	}
	return p.discard()
}

// discard is Discard on a Go backend.
func (p *Pool) discard() int {
	c := &p.coord
	var drop func(jobs.Job)
	if p.tracked.Load() {
		drop = dropJob
	}
	n := 0
	if p.shards != nil {
		n = p.discardSharded(drop)
	}
	p.lock(c)
	if p.shards == nil {
		if p.in != nil {
			// All, not just up to a position still being written: the
			// jobs behind it were accepted by Enqueues that returned.
			p.in.moveAll(&p.q)
		}
		n = p.q.len()
		if drop != nil {
			p.q.each(drop)
		}
		p.q.clear()
		p.popped.Add(uint64(n)) // taken, as far as Join's targets are concerned
	}
	if p.room != nil {
		p.room.release(n)
	}
	n += p.dropGrabsLocked(drop)
	p.dropped.Add(uint64(n))
	p.wakeDoneJoinsLocked(c)
	p.unlock(c)
	return n
}

// dropJob tells a group's job that it was dropped unrun.
func dropJob(j jobs.Job) {
	if d, ok := j.(dropper); ok {
		d.drop()
	}
}

// shutdown is Close: closed, then (sharded) no push in flight, then sealed
// with the gate open and every worker woken; it waits for them to exit.
func (p *Pool) shutdown() error {
	if p.nat != nil {
		p.closed.Store(true)
		return p.nat.close()
	}
	c := &p.coord
	if p.shards != nil {
		p.closed.Store(true)
		p.sealShards()
	}
	p.lock(c)
	p.closed.Store(true)
	if p.in != nil {
		p.in.close()
	}
	p.sealed.Store(true)
	p.gateOpen.Store(true)
	release := p.wakeEveryoneLocked(c)
	p.unlock(c)
	if release > 0 {
		c.addFutex(p.sema.release(release))
	}
	p.wg.Wait()
	err := p.awaitThreadExit()
	p.lock(c)
	panics := p.takePanicsLocked()
	p.unlock(c)
	return errors.Join(panics, err)
}

// stopAccepting makes every later enqueue return ErrClosed, as Close does
// first.
func (p *Pool) stopAccepting() {
	c := &p.coord
	p.lock(c)
	p.closed.Store(true)
	if p.in != nil {
		p.in.close()
	}
	p.unlock(c)
	if p.shards != nil {
		p.sealShards() // no push that saw the pool open is still in flight
	}
}

// Shutdown stops accepting jobs at once, lets the workers run the queued
// jobs until ctx ends, then discards the jobs not yet started (Discard) and
// waits for the running ones, and for the workers to exit, as Close does.
// It returns the panics that no Join or group's Wait collected, as Close
// does, and, if it discarded jobs, a *DroppedError wrapping ErrDropped
// with their count and ctx's cause; a group whose jobs it discarded
// reports them to its own Wait. Given the context a group's job received,
// it returns ErrCalledFromJob at once. After Shutdown, Close returns at
// once. On the Native backend it is Close.
func (p *Pool) Shutdown(ctx context.Context) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if p.calledFromJob(ctx) {
		return fmt.Errorf("workerpool: shutdown: %w", ErrCalledFromJob)
	}
	if p.nat != nil {
		return p.Close()
	}
	p.stopAccepting()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		return err
	case <-ctx.Done():
	}
	n := p.discard()
	err := <-closed
	if n > 0 {
		err = errors.Join(err, &DroppedError{Count: n, Cause: context.Cause(ctx)})
	}
	return err
}

// wakeEveryoneLocked wakes every waiting worker for Close, and returns how
// many Spin units to release after unlocking: one for every worker that may
// spin or sleep.
func (p *Pool) wakeEveryoneLocked(c *counters) (release int) {
	switch p.opts.Wake {
	case Broadcast, Signal:
		c.wakeCalls.Add(1)
		c.addFutex(p.work.wake(wakeAll))
	case Targeted:
		for _, id := range p.idle {
			c.wakeCalls.Add(1)
			c.addFutex(p.workers[id].park.unpark())
		}
		p.waking.Add(int32(len(p.idle)))
		if p.in != nil {
			p.sleepers.Add(-int32(len(p.idle)))
		}
		p.idle = p.idle[:0]
	case Spin:
		c.wakeCalls.Add(1)
		p.stopListenerLocked()
		return len(p.workers)
	}
	return 0
}

// awaitThreadExit waits until every worker thread has terminated. The
// runtime ends a locked thread just after its goroutine returns, so this
// takes microseconds; the bound only turns a runtime surprise into an error.
func (p *Pool) awaitThreadExit() error {
	tids := p.retiredThreads
	for i := range p.workers {
		tids = append(tids, int(p.workers[i].tid.Load()))
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, tid := range tids {
		for tid != 0 && !p.kit.threadExited(tid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("workerpool: close: worker thread %d still running", tid)
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	return nil
}
