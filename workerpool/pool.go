package workerpool

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
)

// How the pool keeps Pool's promises. The dispatch algorithm is at serve
// (worker.go), stealing at steal.go, the wake rules at the WakePolicy
// constants and wake.go, the gate at gate.go, the lock-free enqueue at
// ingress.go; what they cost is measured in docs/workerpool.md.
//
// Invariants of the pool:
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

// Pool is a fixed set of workers serving a job queue. All methods are safe
// for concurrent use.
//
// An accepted job runs exactly once, unless it is dropped on purpose
// (Discard, Shutdown, a group's cancel), which is counted and reported. A
// job's panic is recovered and reported to whoever waits for the job: a
// group's Wait, Map, Join or Close. Jobs are taken in FIFO order; a pool of
// one worker runs them in enqueue order, while on more workers a job may
// start before an older one that another worker holds. On an ungated pool
// idle workers take over the jobs queued behind a slow one, all but the
// few its worker claimed with it (fewer than ran before it in the same
// grab; none when it is the first).
//
// A Pool must be made by New. The zero Pool and a nil *Pool have no
// workers and never panic: their enqueue methods, Join, Shutdown and Close
// return ErrNotInitialized, as do Map and the Wait of a group with jobs;
// Start does nothing, and the other methods return zero values.
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
	// limit and window are w's own view of its claim (steal.go): jobs
	// held[:limit] are claimed for w, and its next claim takes window
	// more.
	limit, window uint8
	held          []jobs.Job // the current grab, oldest first: buf[:n]
	next          int        // held[next:] have not started
	// skipped counts the jobs of the current grab that a cancelled group
	// skipped unrun (Group.run): publishGrab counts them as dropped, not
	// as run.
	skipped int
	// claim says which jobs of the grab are w's and which a thief took
	// (ungated pools; see steal.go). Written by w per job, by thieves
	// rarely: on this line, not on the handoff line that Joins poll.
	claim atomic.Uint64
	// goid is the id of w's goroutine, so that a wait can tell it runs
	// on w and help (help.go).
	goid atomic.Int64
	_    [cacheLine - 120]byte

	// The handoff line. state is running — 1 + the sequence number of the
	// oldest job of the current grab, 0 between grabs, which Join reads —
	// and, while w listens for handoffs, the mail bits (see handoff.go).
	// Outside listen only w writes it.
	state atomic.Uint64
	buf   [MaxGrab]jobs.Job
	_     [cacheLine - 8]byte // keeps the next worker's counters off buf's last line

	// helps lists the jobs w runs while its own jobs wait, on a sharded
	// pool, innermost first: each is running as state is, so that Join
	// sees it (help.go). Written by w, read by Joins.
	helps atomic.Pointer[helpFrame]
	_     [cacheLine - 8]byte
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
		p.room = newRoom(opts.Workers + opts.MaxQueued)
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
// Workers is never 0 and Wake is the policy the pool runs (never
// DefaultWake), so that New(p.Options()) makes the same pool. A Pool not made by
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

// lock and unlock take the queue lock for a caller whose counters are c.
func (p *Pool) lock(c *counters) {
	n := p.mu.lock()
	c.locks.Add(1)
	c.addFutex(n)
}

func (p *Pool) unlock(c *counters) { c.addFutex(p.mu.unlock()) }
