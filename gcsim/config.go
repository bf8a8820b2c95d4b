package gcsim

import (
	"runtime"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// ErrInvalidConfig is setting.ErrInvalid (as heap.ErrInvalidConfig is),
// wrapped by every error Validate returns (each a *setting.Error naming the
// setting), by Compare's errors about its options, and by ParseMode's.
var ErrInvalidConfig = setting.ErrInvalid

// Mode is how a minor collection's jobs are dispatched.
type Mode int

const (
	// Serial runs every job inline on the collecting goroutine (SGen's default).
	Serial Mode = iota
	// PerJob enqueues the jobs one at a time on the gated pool, then starts
	// and joins it (SGen's simple-par collector enqueueing each job with
	// sgen_thread_pool_job_enqueue, mono/mono's mono/sgen/sgen-thread-pool.c).
	PerJob
	// Batch enqueues all jobs with one EnqueueBatch, then starts and joins
	// the pool (SGen's deferred jobs, signalled once by
	// sgen_thread_pool_flush_deferred_jobs while its workers were not yet
	// started, then once more by sgen_workers_start_all_workers).
	Batch
	// StartBatch queues all jobs and opens the gate with one StartBatch —
	// one lock acquisition, one wake, made after the unlock — then joins the
	// pool: Batch without the wake behind the closed gate, which SGen's fix
	// kept, and without waking workers onto a lock their waker holds.
	StartBatch
)

var modeNames = enum.New[Mode]("Mode", "mode", ErrInvalidConfig, "serial", "perjob", "batch", "startbatch")

// Modes lists every mode, in the order of their values.
func Modes() []Mode { return modeNames.Values() }

// String returns the mode's name as ParseMode accepts it ("serial",
// "perjob", "batch", "startbatch"), or "Mode(N)" for an unknown value.
func (m Mode) String() string { return modeNames.String(m) }

// MarshalText returns the mode's name, or an error wrapping
// ErrInvalidConfig for a value without one.
func (m Mode) MarshalText() ([]byte, error) { return modeNames.Marshal(m) }

// UnmarshalText sets m from a name ParseMode accepts.
func (m *Mode) UnmarshalText(text []byte) error { return modeNames.Unmarshal(text, m) }

// ParseMode returns the mode named s ("serial", "perjob", "batch",
// "startbatch"; case-insensitive), or an error wrapping ErrInvalidConfig.
func ParseMode(s string) (Mode, error) { return modeNames.Parse(s) }

// ModeNames lists the names ParseMode accepts, in the order of Modes.
func ModeNames() []string { return modeNames.List() }

// Config describes a simulation. Sizes are in bytes.
type Config struct {
	// MajorHeap, LOS and Nursery size the heap's spaces (heap.Config's
	// rules: multiples of the block and page sizes). Validate also requires
	// the major heap, once filled to Mutator.MajorFill, to have room for
	// twice a nursery and a block per worker, and the LOS, once filled to
	// Mutator.LOSFill, room for the mutator's large objects.
	MajorHeap, LOS, Nursery int64
	// Roots is the number of write-barrier root slots (0: heap.DefaultRoots;
	// otherwise 64..heap.MaxRoots). The first three quarters hold the initial
	// old generation, Roots/64 hold the mutator's large objects.
	Roots int
	// Workers is the pool's worker count (1..workerpool.MaxWorkers).
	Workers int
	// Backend and Wake select the pool's workers and its wake policy.
	Backend workerpool.Backend
	Wake    workerpool.WakePolicy
	// Mutex is the Native backend's pthread mutex kind. The other backends'
	// locks have no kinds: they leave it unused, so that a configuration
	// can switch backends by Backend alone.
	Mutex workerpool.MutexKind
	// Seed determines the initial heap and every mutator choice.
	Seed uint64
	// Verify runs the heap verifier before and after every collection and
	// requires the reachable graph's checksum to be unchanged (untimed).
	Verify bool
	// KernelSnapshot, on the Native backend, reads every worker thread's
	// /proc/self/task/TID/stat and syscall files at the gate's opening,
	// just before Start (or StartBatch) wakes them: the four "_at_start"
	// counters (workerpool.Options.KernelSnapshot). The reads fall inside
	// the pause, in Dispatch, and lengthen it (docs/methodology.md gives
	// their measured cost); other backends ignore it.
	KernelSnapshot bool
	Mutator        MutatorConfig
	// Trace, if non-nil, receives the simulation's events: collection
	// start and end around every minor pause (just outside the timed
	// interval), the pool's job, enqueue and wake events, and job start and
	// end for Serial's inline jobs, through a TraceObserver registered in
	// New; TraceCollectionStart and the other Trace kinds say which. The
	// caller owns the session and closes it after the Sim. When nil,
	// tracing costs one nil check per hook.
	Trace *trace.Session
}

// MutatorConfig shapes the untimed mutator. The defaults (DefaultMutator)
// give a minor collection at the default heap thousands of dirty cards and a
// survival rate of a few percent.
type MutatorConfig struct {
	// MajorFill and LOSFill are the fractions of the major heap and the LOS
	// that the initial old generation fills (heap.Populate).
	MajorFill, LOSFill float64
	// BarrierStores is how many nursery references are stored into old
	// slots (roots, LOS objects, major objects) per nursery fill.
	BarrierStores int
	// Published is how many distinct nursery objects receive those stores
	// per fill: the survivors' seeds. Each is stored BarrierStores/Published
	// times (a popular young object, such as a new string put in many places).
	Published int
	// Lifetime sets how long a reference stored into an object of the
	// initial old generation stays before the mutator clears the slot
	// again (≥ 1): the deaths that balance the survivors, so the old
	// generation reaches a steady state.
	// The mutator remembers the last BarrierStores×Lifetime slots it filled
	// in such objects, and only the stores that go there (about
	// 1 − RootShare − LOSShare of them) fill that ring, so a slot is cleared
	// after about Lifetime / (1 − RootShare − LOSShare) fills, never fewer
	// than Lifetime.
	Lifetime int
	// RootShare and LOSShare are the fractions of the barrier stores that go
	// to root slots and to slots of large objects; the rest fill nil slots of
	// objects drawn uniformly from the initial old generation.
	RootShare, LOSShare float64
	// NurseryLinks is the probability that a reference slot of a new object
	// points to a recently allocated nursery object, OldLinks that it points
	// to an old object (the rest stay nil).
	NurseryLinks, OldLinks float64
	// LargeObjects is how many large objects are allocated per nursery fill;
	// each replaces an older one in a "handle" root slot, so the LOS churns.
	// MaxLargeObject caps their size (> heap.MaxSmallObject).
	LargeObjects, MaxLargeObject int
	// MajorGCFree triggers an untimed major collection before a mutator
	// phase when less than this fraction of the major heap is in empty
	// blocks (or less than a nursery's worth of worst-case promotion).
	MajorGCFree float64
}

// DefaultMutator returns the documented defaults:
//
//   - MajorFill 0.6, LOSFill 0.5: the seed's 60% full major heap; half the
//     LOS, leaving room for large-object churn without fragmentation failures.
//   - BarrierStores 4000, Published 200, RootShare 0.05, LOSShare 0.25:
//     most stores land on different cards, so a collection scans thousands
//     of dirty cards, while only the 200 published objects and what they
//     link to survive: a few percent of the nursery with the default size
//     mix (heap.Rand.SmallShape). SGen's minor collections are dominated by
//     the same two costs, card scanning and copying the few survivors.
//   - Lifetime 8: a survivor stored into an old object dies about
//     8 / 0.7 ≈ 11 collections later (70% of the stores go to old objects
//     rather than roots and LOS handles), so the old generation is in a
//     steady state.
//   - NurseryLinks 0.1, OldLinks 0.05: young objects mostly die young; the
//     survivors drag a short chain of nursery objects with them (gray-stack
//     work) and point at old objects (ignored by the minor collector).
//   - LargeObjects 1 per fill, up to 64 KiB.
//   - MajorGCFree 0.1.
func DefaultMutator() MutatorConfig {
	return MutatorConfig{
		MajorFill: 0.6, LOSFill: 0.5,
		BarrierStores: 4000, Published: 200, Lifetime: 8,
		RootShare: 0.05, LOSShare: 0.25,
		NurseryLinks: 0.1, OldLinks: 0.05,
		LargeObjects: 1, MaxLargeObject: 64 << 10,
		MajorGCFree: 0.1,
	}
}

// DefaultConfig is the seed experiment: a 2.5 GiB major heap, a 1 GiB LOS,
// SGen's 4 MiB nursery, one worker per CPU, the default mutator, and SGen's
// own pool: the Native backend with mono's mutex kind on Linux
// (DefaultBackend), woken by broadcast.
func DefaultConfig() Config {
	hc := heap.DefaultConfig()
	b, m := DefaultBackend()
	return Config{
		MajorHeap: hc.MajorHeap, LOS: hc.LOS, Nursery: hc.Nursery,
		Roots:   heap.DefaultRoots,
		Workers: runtime.NumCPU(),
		Backend: b,
		Mutex:   m,
		Wake:    workerpool.Broadcast,
		Seed:    1,
		Mutator: DefaultMutator(),
	}
}

// DefaultBackend is the pool that reproduces SGen's where this build can
// run it: the Native backend with a PTHREAD_PRIO_INHERIT mutex, as mono
// makes its mutexes on Linux (mono/utils/mono-os-mutex.h); without cgo the
// Threads backend, whose futex mutex has no kinds.
func DefaultBackend() (workerpool.Backend, workerpool.MutexKind) {
	if workerpool.NativeAvailable {
		return workerpool.Native, workerpool.MutexPI
	}
	return workerpool.Threads, workerpool.MutexNormal
}

// Heap is the heap part of the configuration, as New builds the heap (a
// zero Roots is heap.DefaultRoots). A front end can refuse a heap that does
// not fit this machine before any other work with
// c.Heap().CheckMemory(heap.AvailableMemory()), as New does.
func (c Config) Heap() heap.Config {
	roots := c.Roots
	if roots == 0 {
		roots = heap.DefaultRoots
	}
	return heap.Config{MajorHeap: c.MajorHeap, LOS: c.LOS, Nursery: c.Nursery, Roots: roots, Seed: c.Seed}
}

// PoolOptions are the options of the gated pool New starts for c: its
// workers, backend and wake policy, KernelSnapshot on the Native backend,
// and its mutex kind where the backend has kinds (workerpool.Backend.HasMutexKinds; elsewhere Mutex is unused).
// Validate checks them with workerpool.Options.Validate, so that a pool
// New would refuse is refused before the heap is built.
func (c Config) PoolOptions() workerpool.Options {
	o := workerpool.Options{Workers: c.Workers, Backend: c.Backend, Wake: c.Wake, Gated: true}
	if c.Backend.HasMutexKinds() {
		o.Mutex = c.Mutex
	}
	if c.Backend == workerpool.Native {
		o.KernelSnapshot = c.KernelSnapshot
	}
	return o
}
