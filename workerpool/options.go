package workerpool

import (
	"fmt"
	"runtime"

	"github.com/gcbench/gcbench/internal/enum"
)

// Backend selects what a worker is.
type Backend int

const (
	// Goroutines runs each worker as a goroutine parked on Go primitives
	// (sync.Mutex, sync.Cond, channels); wakes go through the Go scheduler.
	Goroutines Backend = iota
	// Threads locks each worker to its own OS thread and builds the queue
	// mutex and every park/wake on the Linux futex syscall
	// (internal/futex), so a wake is a kernel wake of a thread, as in a
	// pthread pool. Linux only. A worker stays locked to its thread, so the
	// thread ends with the worker. Join sleeps on a futex condition too,
	// not on the Go scheduler: the worker that would ready a parked joiner
	// goes straight back to its futex sleep still holding its P, so the
	// joiner would wait for the runtime to retake that P. A job may
	// lock and unlock its thread in pairs, but must not leave it unlocked
	// (runtime.UnlockOSThread without its LockOSThread): Close waits for
	// the worker's thread to end, and an unlocked one does not.
	Threads
	// Native runs SGen's thread pool itself: the worker loop — one pthread
	// mutex of the kind Options.Mutex names, one condition variable, the
	// gate read under the mutex, one job per mutex hold — runs in C on
	// pthreads, and each job is one callback into Go. Herds of futile
	// wake-ups are then the kernel's alone, where on Threads the Go
	// scheduler cuts them short. It needs cgo on Linux (NativeAvailable);
	// elsewhere New returns ErrNativeUnavailable.
	//
	// It carries the SGen round — Enqueue, EnqueueFunc, EnqueueBatch,
	// Start, StartBatch, Join, Discard, Close — the Broadcast, Signal and
	// Targeted policies (Signal and Targeted as pthread_cond_signal calls,
	// each counted as a wake call) and the counters, except FutexCalls:
	// glibc makes those (Stats.FutexUncounted). New refuses Spin and the
	// Sharded layout with ErrUnsupported. Enqueuers are serialized by a Go
	// mutex before the C one, so that the entries reach the queue in order.
	// The Observer hears JobStart, JobEnd and Enqueued, not Woken or
	// FutileWake (those happen in C; Stats counts them). A job must not
	// call runtime.Goexit: on a thread C created that is fatal. Each
	// callback needs a P: keep GOMAXPROCS ≥ Workers+1.
	Native
)

var backends = enum.New[Backend]("Backend", "backend", ErrInvalidOptions, "goroutines", "threads", "native")

// String returns the backend's lower-case name, as ParseBackend accepts it,
// or "Backend(n)" for a value without one.
func (b Backend) String() string { return backends.String(b) }

// MarshalText returns the backend's name, or an error wrapping
// ErrInvalidOptions for a value without one.
func (b Backend) MarshalText() ([]byte, error) { return backends.Marshal(b) }

// UnmarshalText sets b from a name ParseBackend accepts.
func (b *Backend) UnmarshalText(text []byte) error { return backends.Unmarshal(text, b) }

// ParseBackend returns the backend named s ("goroutines", "threads" or
// "native", case-insensitive); other names yield an error wrapping
// ErrInvalidOptions. A build without the Native backend still parses its
// name: New says it is missing.
func ParseBackend(s string) (Backend, error) { return backends.Parse(s) }

// BackendNames lists the names ParseBackend accepts, in value order.
func BackendNames() []string { return backends.List() }

// WakePolicy selects whom an enqueue wakes. Each named constant states its
// exact rule: what an enqueue of n jobs, Start and Close wake (StartBatch
// wakes as Start does, after releasing the lock). New honours every named
// policy as given.
type WakePolicy int

const (
	// DefaultWake, the zero value, is the pool's default: Broadcast on a
	// gated pool (the SGen round wakes as SGen does), Targeted on an
	// ungated one (it measured faster than Broadcast for one submitter and
	// for many). Pool.Options reports the policy the pool runs.
	DefaultWake WakePolicy = iota
	// Broadcast wakes every waiting worker, under the lock, on every
	// enqueue and on Start, even while the gate is closed (SGen's pool).
	// Each woken worker re-takes the lock; with the gate closed it finds
	// nothing and waits again (a futile wake-up).
	Broadcast WakePolicy = iota
	// Signal wakes min(n, workers) waiting workers for n enqueued jobs,
	// under the lock, whether or not the gate lets them work: one futex
	// call on Threads, n sync.Cond signals on Goroutines.
	Signal
	// Targeted wakes exactly min(runnable jobs, parked workers) workers,
	// one at a time. Parked workers wait on a stack, each with its own
	// parker. While the gate is open and runnable jobs outnumber the
	// workers already woken, a waker pops one worker and unparks it after
	// unlocking; a worker that takes a job applies the same rule, so wakes
	// chain (the Go runtime's wakep). Nothing is woken while the gate is
	// closed, so a gated enqueue costs no wake at all. An ungated Targeted
	// pool on the shared queue enqueues single jobs without the queue lock
	// (see Pool.Enqueue).
	Targeted
	// Spin keeps idle workers spinning, holding a P, for up to 20 µs
	// before they sleep, at most GOMAXPROCS−1 of them at once, so that the
	// enqueuers they wait for keep a P. One of them, the listener, polls
	// its own state word: an enqueuer that finds it listening takes a grab
	// for it under the lock and hands it over with one CAS, so a round
	// trip to a spinning worker moves one cache line each way and takes no
	// lock on the worker's side (handoff.go). For the jobs not handed over,
	// Spin releases min(n, workers − outstanding) units of a
	// spin-then-park semaphore after CoreCLR's UnfairSemaphore
	// (unfairSema), whose releases go first to workers still spinning,
	// without a system call. It gives the lowest round-trip latency on both
	// backends, at the cost of CPU time spent spinning. Nothing is woken
	// while the gate is closed.
	Spin
)

// wakes names the named policies: the policy v is wakes' value v−1, so that
// DefaultWake, which names no policy, has no name to parse or marshal.
var wakes = enum.New[WakePolicy]("WakePolicy", "wake policy", ErrInvalidOptions, "broadcast", "signal", "targeted", "spin")

// named reports whether w is a named policy (not DefaultWake).
func (w WakePolicy) named() bool { return w >= Broadcast && w <= Spin }

// String returns the policy's lower-case name, as ParseWakePolicy accepts
// it, "default" for DefaultWake, or "WakePolicy(n)" for a value without
// one.
func (w WakePolicy) String() string {
	switch {
	case w == DefaultWake:
		return "default"
	case !w.named():
		return fmt.Sprintf("WakePolicy(%d)", int(w))
	}
	return wakes.String(w - 1)
}

// MarshalText returns the policy's name, or an error wrapping
// ErrInvalidOptions for DefaultWake and a value without one: a saved
// configuration names its policy.
func (w WakePolicy) MarshalText() ([]byte, error) {
	if !w.named() {
		return nil, fmt.Errorf("%w: wake policy %v has no name", ErrInvalidOptions, w)
	}
	return wakes.Marshal(w - 1)
}

// UnmarshalText sets w from a name ParseWakePolicy accepts.
func (w *WakePolicy) UnmarshalText(text []byte) error {
	v, err := ParseWakePolicy(string(text))
	if err != nil {
		return err
	}
	*w = v
	return nil
}

// ParseWakePolicy returns the policy named s (broadcast, signal, targeted,
// spin; case-insensitive); other names yield an error wrapping
// ErrInvalidOptions.
func ParseWakePolicy(s string) (WakePolicy, error) {
	v, err := wakes.Parse(s)
	if err != nil {
		return DefaultWake, err
	}
	return v + 1, nil
}

// WakePolicyNames lists the names ParseWakePolicy accepts, in value order.
func WakePolicyNames() []string { return wakes.List() }

// QueueLayout selects how queued jobs are stored.
type QueueLayout int

const (
	// Shared is one FIFO queue guarded by one lock, the queue lock, under
	// which every enqueue also makes its wake decision (SGen's pool) —
	// except a single-job enqueue on an ungated Targeted pool, which goes
	// through a lock-free ingress. A batch is one lock acquisition and one
	// wake call. It is the default.
	Shared QueueLayout = iota
	// Sharded gives each worker its own queue and lock (a shard).
	// Enqueuers pick a shard at random and take only its lock, and the
	// pool lock only when a worker sleeps and must be woken; a worker
	// takes grabs from its own shard first and steals from the others
	// when it is empty, visiting them from a random one on. It scales with
	// many concurrent enqueuers. Jobs are taken in FIFO order within a
	// shard, in no order across shards. A Spin pool hands nothing to a
	// listener here: its idle workers spin on the semaphore.
	//
	// The queue lock becomes the pool lock: it guards the gate, the wake
	// policies' state and sleeping Joins (Spin reserves its semaphore units
	// with a CAS instead). Each shard numbers its jobs, a grab is published
	// as running with its shard's index, and a Join's target is one
	// sequence number per shard; shard.go states the invariants this adds.
	// The shared queue stays the default and is what gcsim measures: SGen's
	// pool had one.
	Sharded
)

var queues = enum.New[QueueLayout]("QueueLayout", "queue layout", ErrInvalidOptions, "shared", "sharded")

// String returns the layout's lower-case name, as ParseQueueLayout accepts
// it, or "QueueLayout(n)" for a value without one.
func (q QueueLayout) String() string { return queues.String(q) }

// MarshalText returns the layout's name, or an error wrapping
// ErrInvalidOptions for a value without one.
func (q QueueLayout) MarshalText() ([]byte, error) { return queues.Marshal(q) }

// UnmarshalText sets q from a name ParseQueueLayout accepts.
func (q *QueueLayout) UnmarshalText(text []byte) error { return queues.Unmarshal(text, q) }

// ParseQueueLayout returns the layout named s (shared or sharded,
// case-insensitive); other names yield an error wrapping ErrInvalidOptions.
func ParseQueueLayout(s string) (QueueLayout, error) { return queues.Parse(s) }

// MutexKind selects the pthread mutex of the Native backend's pool.
type MutexKind int

const (
	// MutexNormal is PTHREAD_MUTEX_NORMAL: an unlock lets a running thread
	// take the mutex before the waiter it woke (barging).
	MutexNormal MutexKind = iota
	// MutexPI is PTHREAD_PRIO_INHERIT, the kind mono's mono_os_mutex_init
	// asks for on Linux (mono/utils/mono-os-mutex.h): the kernel hands a
	// contended mutex to its waiter at unlock.
	MutexPI
	// MutexAdaptive is glibc's PTHREAD_MUTEX_ADAPTIVE_NP: a contended lock
	// spins a while before it sleeps.
	MutexAdaptive
)

var mutexes = enum.New[MutexKind]("MutexKind", "mutex kind", ErrInvalidOptions, "normal", "pi", "adaptive")

// String returns the kind's lower-case name, as ParseMutexKind accepts it,
// or "MutexKind(n)" for a value without one.
func (m MutexKind) String() string { return mutexes.String(m) }

// MarshalText returns the kind's name, or an error wrapping
// ErrInvalidOptions for a value without one.
func (m MutexKind) MarshalText() ([]byte, error) { return mutexes.Marshal(m) }

// UnmarshalText sets m from a name ParseMutexKind accepts.
func (m *MutexKind) UnmarshalText(text []byte) error { return mutexes.Unmarshal(text, m) }

// ParseMutexKind returns the kind named s (normal, pi or adaptive,
// case-insensitive); other names yield an error wrapping ErrInvalidOptions.
func ParseMutexKind(s string) (MutexKind, error) { return mutexes.Parse(s) }

// MutexKindNames lists the names ParseMutexKind accepts, in value order.
func MutexKindNames() []string { return mutexes.List() }

// HasMutexKinds reports whether b's lock has the kinds Options.Mutex
// selects: only Native's pthread mutex does; the other backends accept
// only MutexNormal. It is the one statement of that rule: front ends ask
// it to refuse or hide a mutex kind, and Validate applies it.
func (b Backend) HasMutexKinds() bool { return b == Native }

// MaxWorkers is the largest pool New accepts. The Spin policy packs its
// counts, which reach at most 2×workers, into 16-bit fields, a worker's
// state word has 12 bits for a shard's index, and thousands of parked OS
// threads are never what a job-batch pool wants.
const MaxWorkers = 4096

// Options configures a Pool. The zero value is valid: GOMAXPROCS goroutine
// workers on one shared queue, ungated, with the Targeted wake policy, no
// bound on the queue and no observer.
type Options struct {
	// Workers is the number of workers, 0..MaxWorkers; 0 means
	// runtime.GOMAXPROCS(0) at New.
	Workers int
	// Backend selects goroutine or OS-thread workers.
	Backend Backend
	// Wake selects the wake policy; the zero value, DefaultWake, is the
	// pool's default (Targeted, or Broadcast on a gated pool). A named
	// policy is used as given.
	Wake WakePolicy
	// Queue selects the shared queue (the default) or per-worker shards.
	Queue QueueLayout
	// Mutex selects the Native backend's pthread mutex kind; the other
	// backends accept only the zero value, MutexNormal.
	Mutex MutexKind
	// Gated pools model SGen's "started" flag: workers may not take jobs
	// until Start opens the gate, and the gate closes again when Join
	// returns, so a round is enqueue → Start → Join. Close opens the gate
	// for good so that accepted work drains.
	Gated bool
	// MaxQueued bounds the jobs that wait: accepted and not started,
	// whether still queued or taken by a worker that has not started
	// them. An idle worker is room, so at most Workers + MaxQueued jobs
	// are accepted and unfinished at any time, and a job is accepted
	// whenever fewer are. 0 means unbounded. At the bound Enqueue,
	// EnqueueFunc, EnqueueBatch and groups' Go wait for room, EnqueueCtx
	// and EnqueueBatchCtx wait until their context ends, and TryEnqueue
	// returns ErrQueueFull: one rule for every form. A batch larger than
	// Workers + MaxQueued is refused at once with ErrBatchTooLarge; one
	// that fits waits whole, never half queued. A job that enqueues into
	// its full pool waits like any caller: if every worker's job does,
	// none is left to make room. The Native backend has no bound: New
	// refuses MaxQueued > 0 there with ErrUnsupported.
	MaxQueued int
	// Observer, if non-nil, is told about job starts and ends, enqueues and
	// wakes. When nil, each hook point costs one nil check.
	Observer Observer
	// KernelSnapshot makes each Start and StartBatch of a gated Native pool
	// read every worker thread's state from /proc/self/task just before
	// the call opens the gate (KernelStats' Snapshots): two file reads per
	// worker, tens of µs each, on the caller's time. Other backends ignore
	// it.
	KernelSnapshot bool
}

// Observer receives the pool's events, for tracing. Its methods are called
// from workers and enqueuers concurrently, Woken and FutileWake mostly with
// the queue lock held (not those of a Spin handoff or of a sharded Spin
// pool); they must be cheap, safe for concurrent use, and must not call
// back into the pool.
type Observer interface {
	// JobStart and JobEnd bracket each job run by worker.
	JobStart(worker int)
	JobEnd(worker int)
	// Enqueued reports n jobs enqueued by one Enqueue, EnqueueFunc or
	// EnqueueBatch call.
	Enqueued(n int)
	// Woken reports that a parked worker woke up.
	Woken(worker int)
	// FutileWake reports that a worker woke and found no job it may run.
	FutileWake(worker int)
}

// Validate returns the error New would return for o before it starts
// anything, or nil: an error wrapping ErrInvalidOptions for a value out of
// range or a mutex kind on a backend without kinds (HasMutexKinds), and one
// wrapping ErrUnsupported for a combination the backend does not carry
// (Native with Spin or Sharded, or with MaxQueued). It does not ask
// whether this build or system has the backend (NativeAvailable): New
// alone finds that out.
func (o Options) Validate() error {
	if err := o.validate(); err != nil {
		return err
	}
	switch {
	case o.Backend == Native && o.Wake == Spin:
		return fmt.Errorf("workerpool: the Native backend has no Spin policy: %w", ErrUnsupported)
	case o.Backend == Native && o.Queue == Sharded:
		return fmt.Errorf("workerpool: the Native backend has one shared queue, not Sharded: %w", ErrUnsupported)
	}
	return nil
}

func (o Options) validate() error {
	switch {
	case o.Workers < 0 || o.Workers > MaxWorkers:
		return fmt.Errorf("%w: Workers = %d, want 1..%d (0: GOMAXPROCS)", ErrInvalidOptions, o.Workers, MaxWorkers)
	case !backends.Valid(o.Backend):
		return fmt.Errorf("%w: unknown backend %v", ErrInvalidOptions, o.Backend)
	case o.Wake != DefaultWake && !o.Wake.named():
		return fmt.Errorf("%w: unknown wake policy %v", ErrInvalidOptions, o.Wake)
	case !queues.Valid(o.Queue):
		return fmt.Errorf("%w: unknown queue layout %v", ErrInvalidOptions, o.Queue)
	case !mutexes.Valid(o.Mutex):
		return fmt.Errorf("%w: unknown mutex kind %v", ErrInvalidOptions, o.Mutex)
	case o.Mutex != MutexNormal && !o.Backend.HasMutexKinds():
		return fmt.Errorf("%w: Mutex %v is for the Native backend, not %v", ErrInvalidOptions, o.Mutex, o.Backend)
	case o.MaxQueued < 0:
		return fmt.Errorf("%w: MaxQueued = %d, want ≥ 0 (0: unbounded)", ErrInvalidOptions, o.MaxQueued)
	case o.MaxQueued > 0 && o.Gated:
		return fmt.Errorf("%w: MaxQueued = %d is for ungated pools: a gated pool's enqueues must not wait for a Start they come before", ErrInvalidOptions, o.MaxQueued)
	case o.MaxQueued > 0 && o.Backend == Native:
		return fmt.Errorf("workerpool: MaxQueued = %d: the Native backend has no queue bound: %w", o.MaxQueued, ErrUnsupported)
	}
	return nil
}

// resolved returns o with its defaults made explicit: Workers = GOMAXPROCS
// for 0, and for DefaultWake Broadcast on a gated pool (SGen's), Targeted
// on an ungated one.
func (o Options) resolved() Options {
	if o.Workers == 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), MaxWorkers)
	}
	if o.Wake == DefaultWake {
		o.Wake = Targeted
		if o.Gated {
			o.Wake = Broadcast
		}
	}
	return o
}
