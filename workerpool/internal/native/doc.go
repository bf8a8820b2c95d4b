// Package native runs SGen's thread-pool protocol in C on pthreads, for
// workerpool's Native backend: the whole worker loop (one mutex, a work
// condition variable, the gate read under the mutex; a worker retires a job,
// signals the done condition and takes the next in one mutex hold) after
// mono/sgen/sgen-thread-pool.c's thread_func and get_work, with each job one
// callback into Go. Herds of futile wake-ups are then the kernel's alone: no
// Go scheduler stands between a wake and the woken.
//
// A Join or Close called on one of the pool's own threads (inside a job)
// returns ErrOnWorker: the pool knows its threads, and either call would
// otherwise wait for, or free, the thread it runs on.
//
// The pool queues 64-bit entries, not Go values (C may not keep Go
// pointers): the caller maps an entry to its job. An entry with SpinBit
// set is a synthetic job that spins in C for the low bits' nanoseconds and
// makes no callback, so that the callback's share of a dispatch can be
// measured.
//
// It exists where cgo does on Linux (see Available); elsewhere New returns
// ErrUnavailable.
package native

import "errors"

// ErrUnavailable is returned by New where the package was built without
// cgo or off Linux.
var ErrUnavailable = errors.New("native pthread pool not built in (needs cgo on Linux)")

// SpinBit marks a synthetic entry (see the package documentation).
const SpinBit = 1 << 63

// Mutex kinds; Wake policies. Their values are the C side's.
const (
	MutexNormal   = 0 // PTHREAD_MUTEX_NORMAL
	MutexPI       = 1 // PTHREAD_PRIO_INHERIT, mono's kind on Linux
	MutexAdaptive = 2 // PTHREAD_MUTEX_ADAPTIVE_NP

	WakeBroadcast = 0 // pthread_cond_broadcast per enqueue call
	WakeSignal    = 1 // pthread_cond_signal per entry, up to the worker count
	WakeTargeted  = 2 // pthread_cond_signal for min(runnable entries, unsignalled waiters)
)

// Config says what pool New makes.
type Config struct {
	Workers int
	Mutex   int
	Wake    int
	Gated   bool
	// ProcTask is the directory Snapshot reads the workers' threads from
	// ("": /proc/self/task); tests point it elsewhere to make reads fail.
	ProcTask string
	// Run runs entry e (never a synthetic one) on worker; it must not
	// panic (recover inside) nor call runtime.Goexit, which is fatal on a
	// thread C created.
	Run func(e uint64, worker int)
}

// Stats is a snapshot of the pool's counters, each exact: every counter is
// written under the pool's mutex or by an atomic add.
type Stats struct {
	EnqueueLocks, EnqueueWakes uint64 // by Push
	Locks, Wakes               uint64 // by everyone (Wakes: broadcast and signal calls)
	Woken, Futile              uint64 // returns from the condition wait; those that found nothing runnable
	JoinSleeps                 uint64 // condition waits of Join
	// Woken's wake-ups by the CPU the worker woke on: the one the last
	// waker (Push, or the gate's opening) was on at its wake call, another
	// one, or unknown (sched_getcpu failed).
	WokenOnWakerCPU, WokenElsewhere, WokenUnclassified uint64
	JobsRun                                            []uint64
}

// Snap classifies the workers at one instant, from /proc (Pool.Snapshot):
// runnable (state R) on the caller's CPU or elsewhere, or asleep in a futex
// call on the pool's mutex or on its work condition variable. A worker in
// none of these (running a job's callback, asleep elsewhere) is in no
// count, so the four add up to at most the worker count.
type Snap struct {
	RunnableOnCallerCPU, RunnableElsewhere int
	AsleepOnMutex, AsleepOnWorkCond        int
}

// ErrSnapshot is Snapshot's error when the kernel refused a read (a file
// missing, EACCES) or the calling thread's CPU is unknown.
var ErrSnapshot = errors.New("native pool: reading the workers' state from /proc failed")

// Errors of Push, Join and Close.
var (
	// ErrClosed: Close has begun.
	ErrClosed = errors.New("native pool closing")
	// ErrNoMemory: the queue could not grow.
	ErrNoMemory = errors.New("native pool: out of memory growing the queue")
	// ErrOnWorker: Join or Close was called on one of the pool's own
	// threads, inside a job; it would wait for (or free) that thread.
	ErrOnWorker = errors.New("native pool: wait called on one of its own worker threads")
)
