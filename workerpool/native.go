package workerpool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool/internal/native"
)

// NativeAvailable reports whether this build has the Native backend: it
// needs cgo (a C compiler at build time) on Linux.
const NativeAvailable = native.Available

// ErrNativeUnavailable is New's error for the Native backend in a build
// without it (see NativeAvailable). It wraps ErrUnsupported.
var ErrNativeUnavailable error = &unsupportedError{"workerpool: the Native backend is not built in (it needs cgo on Linux)"}

type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }
func (e *unsupportedError) Unwrap() error { return ErrUnsupported }

// SpinJob is a synthetic job that keeps its worker busy for its duration.
// On the Native backend it spins in C and makes no callback into Go, so
// that comparing it with a Go job of the same cost measures the callback's
// share of a dispatch; elsewhere it spins in Go. It is meant for
// benchmarks.
type SpinJob time.Duration

// Run spins for the job's duration.
func (d SpinJob) Run(int) {
	for t0 := time.Now(); time.Since(t0) < time.Duration(d); {
	}
}

// nativePool is a Pool's Native backend: the queue, the workers, the gate
// and the counters live in C (package native); here live the jobs, which C
// may not hold. An entry names a slot, and a slot holds one job from its
// enqueue until a worker takes it.
//
// Invariants. Enqueuers take slots and push their entries under mu, so
// that entries reach C's queue in the order their slots were filled. A
// slot is filled, then marked full (release); the worker that C hands its
// entry to reads full (acquire: the race detector sees no C mutex),
// empties it and pushes it on the free stack with a CAS (release), from
// which an enqueuer takes the whole stack with a swap (acquire). Slots
// never move: the directory only grows, by an append published as a new
// slice header, and an older header still indexes every slot it held.
type nativePool struct {
	c       *native.Pool
	obs     Observer
	mu      sync.Mutex
	dir     atomic.Pointer[[]*nativeSlot]
	free    atomic.Uint32 // the free stack: a slot index + 1, 0 if empty
	local   uint32        // under mu: free slots taken from the stack (index + 1)
	entries []uint64      // under mu: scratch
	ran     atomic.Uint64 // jobs finished: publishes their effects to Join
	pmu     sync.Mutex
	panics  []error
	lost    int
	snap    bool         // Options.KernelSnapshot
	snaps   snapCounters // written by gate openers, read by stats
}

// snapCounters are KernelStats' snapshot counts, atomic: a gate opener
// writes them, Stats reads them at any time.
type snapCounters struct {
	taken, failed                             atomic.Uint64
	runOnWaker, runElsewhere, onMutex, onCond atomic.Uint64
}

// snapshot, before a gate opening, reads the workers' state (Options.KernelSnapshot).
// It is taken from Go just before the C call that opens the gate (np_start,
// np_push with start) rather than inside it: the reads must not hold the
// pool's mutex (that would queue the workers on it, the very state read),
// and np_start wakes under the mutex (SGen's protocol: see StartBatch), so
// the last lock-free instant before its wake is before the call.
// StartBatch's snapshot is taken the same way, for one rule.
func (n *nativePool) snapshot() {
	s, err := n.c.Snapshot()
	if err != nil {
		n.snaps.failed.Add(1)
		return
	}
	n.snaps.runOnWaker.Add(uint64(s.RunnableOnCallerCPU))
	n.snaps.runElsewhere.Add(uint64(s.RunnableElsewhere))
	n.snaps.onMutex.Add(uint64(s.AsleepOnMutex))
	n.snaps.onCond.Add(uint64(s.AsleepOnWorkCond))
	n.snaps.taken.Add(1)
}

// start is Start.
func (n *nativePool) start() {
	if n.snap {
		n.snapshot()
	}
	n.c.Start()
}

type nativeSlot struct {
	job  jobs.Job
	full atomic.Bool
	next atomic.Uint32
}

var nativeMutexKinds = [...]int{MutexNormal: native.MutexNormal, MutexPI: native.MutexPI, MutexAdaptive: native.MutexAdaptive}
var nativeWakes = [...]int{Broadcast: native.WakeBroadcast, Signal: native.WakeSignal, Targeted: native.WakeTargeted}

// newNative starts the Native backend for valid opts.
func newNative(opts Options) (*nativePool, error) {
	switch {
	case !native.Available:
		return nil, ErrNativeUnavailable
	case opts.Wake == Spin:
		return nil, fmt.Errorf("workerpool: the Native backend has no Spin policy: %w", ErrUnsupported)
	case opts.Queue == Sharded:
		return nil, fmt.Errorf("workerpool: the Native backend has one shared queue, not Sharded: %w", ErrUnsupported)
	}
	n := &nativePool{obs: opts.Observer, snap: opts.KernelSnapshot && opts.Gated}
	n.dir.Store(new([]*nativeSlot))
	c, err := native.New(native.Config{
		Workers: opts.Workers, Mutex: nativeMutexKinds[opts.Mutex], Wake: nativeWakes[opts.Wake],
		Gated: opts.Gated, Run: n.run,
	})
	if err != nil {
		return nil, fmt.Errorf("workerpool: Native backend, %v mutex: %w (%w)", opts.Mutex, err, ErrUnsupported)
	}
	n.c = c
	return n, nil
}

// run is the callback C makes for entry e on worker.
func (n *nativePool) run(e uint64, worker int) {
	s := (*n.dir.Load())[e]
	if !s.full.Load() {
		panic("workerpool: native entry for an empty slot") // C handed out an entry twice
	}
	j := s.job
	s.job = nil
	s.full.Store(false)
	for {
		h := n.free.Load()
		s.next.Store(h)
		if n.free.CompareAndSwap(h, uint32(e)+1) {
			break
		}
	}
	if n.obs != nil {
		n.obs.JobStart(worker)
	}
	if pe := runRecovering(j, worker); pe != nil {
		n.keepPanic(pe)
	}
	if n.obs != nil {
		n.obs.JobEnd(worker)
	}
	n.ran.Add(1)
}

// runRecovering runs j and returns its panic, if any: a Go panic must not
// unwind through C frames. A panic is told by j.Run not returning, not by
// recover's value, which is nil for panic(nil) under GODEBUG=panicnil=1.
// (A Goexit would also skip the return, but it cannot be stopped here and
// is fatal on a thread C made; Config.Run's contract excludes it.)
func runRecovering(j jobs.Job, worker int) (pe *PanicError) {
	returned := false
	defer func() {
		if !returned {
			pe = &PanicError{Worker: worker, Value: recover(), Stack: debug.Stack()}
		}
	}()
	j.Run(worker)
	returned = true
	return nil
}

func (n *nativePool) keepPanic(pe *PanicError) {
	n.pmu.Lock()
	if len(n.panics) < maxKeptPanics {
		n.panics = append(n.panics, pe)
	} else {
		n.lost++
	}
	n.pmu.Unlock()
}

func (n *nativePool) takePanics() error {
	n.pmu.Lock()
	defer n.pmu.Unlock()
	err := panicsError(n.panics, n.lost)
	n.panics, n.lost = nil, 0
	return err
}

// takeSlotLocked returns a free slot's index, making one if none is free.
func (n *nativePool) takeSlotLocked() uint32 {
	if n.local == 0 {
		n.local = n.free.Swap(0)
	}
	dir := *n.dir.Load()
	if n.local != 0 {
		i := n.local - 1
		n.local = dir[i].next.Load()
		return i
	}
	// Appending writes past every published length, which no reader
	// indexes; the new length is published with the new header.
	grown := append(dir, new(nativeSlot))
	n.dir.Store(&grown)
	return uint32(len(dir))
}

// appendEntryLocked fills a slot with j, or encodes a SpinJob, and appends
// its entry to es.
func (n *nativePool) appendEntryLocked(es []uint64, j jobs.Job) []uint64 {
	if d, ok := j.(SpinJob); ok && d >= 0 {
		return append(es, native.SpinBit|uint64(d))
	}
	i := n.takeSlotLocked()
	s := (*n.dir.Load())[i]
	s.job = j
	s.full.Store(true)
	return append(es, uint64(i))
}

func (n *nativePool) releaseSlotLocked(i uint32) {
	s := (*n.dir.Load())[i]
	s.job = nil
	s.full.Store(false)
	s.next.Store(n.local)
	n.local = i + 1
}

// enqueue queues one, if not nil, else js (one lock acquisition and one
// wake decision in C); start opens the gate in the same hold (StartBatch).
func (n *nativePool) enqueue(one jobs.Job, js []jobs.Job, start bool) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	es := n.entries[:0]
	if one != nil {
		es = n.appendEntryLocked(es, one)
	}
	for _, j := range js {
		es = n.appendEntryLocked(es, j)
	}
	n.entries = es
	if start && n.snap {
		n.snapshot()
	}
	err := n.c.Push(es, start)
	if err == nil {
		if n.obs != nil && len(es) > 0 {
			n.obs.Enqueued(len(es))
		}
		return nil
	}
	for _, e := range es {
		if e&native.SpinBit == 0 {
			n.releaseSlotLocked(uint32(e))
		}
	}
	if errors.Is(err, native.ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("workerpool: %w", err)
}

// join is Join. On one of the pool's threads (inside a job) it returns
// ErrCalledFromJob: the pool can tell, and the wait would never end.
// ctx's end interrupts the C wait (native.Pool.Interrupt), which moves the
// interrupt generation before it queues for the pool's mutex.
func (n *nativePool) join(ctx context.Context) error {
	if n.c.OnWorker() {
		return fmt.Errorf("workerpool: join: %w", ErrCalledFromJob)
	}
	gen := n.c.Generation()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workerpool: join: %w", err)
	}
	if ctx.Done() != nil { // AfterFunc allocates: not for a context that never ends
		stop := context.AfterFunc(ctx, n.c.Interrupt)
		defer stop()
	}
	for {
		done, err := n.c.Join(gen)
		if err != nil {
			return fmt.Errorf("workerpool: join: %w", ErrCalledFromJob)
		}
		if done {
			break
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("workerpool: join: %w", err)
		}
		gen = n.c.Generation() // another Join's cancellation woke this one
	}
	n.ran.Load() // the jobs' effects happen before Join returns, for the race detector too
	return n.takePanics()
}

// calledFromJob reports whether the caller runs inside one of the pool's
// jobs, on its worker thread: Close must refuse there before its once.
func (n *nativePool) calledFromJob() bool { return n.c.OnWorker() }

// close is Close: every accepted job runs, every worker thread is joined,
// and the panics no Join collected come back, as on the other backends.
func (n *nativePool) close() error {
	if err := n.c.Close(); err != nil {
		return fmt.Errorf("workerpool: close: %w", ErrCalledFromJob)
	}
	n.ran.Load() // the jobs' effects happen before Close returns
	return n.takePanics()
}

func (n *nativePool) discard() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	es := n.c.Discard(n.entries[:0])
	for _, e := range es {
		if e&native.SpinBit == 0 {
			n.releaseSlotLocked(uint32(e))
		}
	}
	n.entries = es
	return len(es)
}

func (n *nativePool) stats() Stats {
	s := n.c.Stats()
	return Stats{
		EnqueueLockAcquisitions: s.EnqueueLocks,
		LockAcquisitions:        s.Locks,
		EnqueueWakeCalls:        s.EnqueueWakes,
		WakeCalls:               s.Wakes,
		WorkersWoken:            s.Woken,
		FutileWakeups:           s.Futile,
		FutexUncounted:          true,
		Grabs:                   sum(s.JobsRun),
		JoinSleeps:              s.JoinSleeps,
		JobsRun:                 s.JobsRun,
		Kernel: KernelStats{
			WakeCPUsCounted:   true,
			WakeupsOnWakerCPU: s.WokenOnWakerCPU, WakeupsElsewhere: s.WokenElsewhere,
			WakeupsUnclassified: s.WokenUnclassified,
			Snapshots:           n.snaps.taken.Load(), SnapshotsFailed: n.snaps.failed.Load(),
			RunnableOnWakerCPU: n.snaps.runOnWaker.Load(), RunnableElsewhere: n.snaps.runElsewhere.Load(),
			AsleepOnMutex: n.snaps.onMutex.Load(), AsleepOnWorkCond: n.snaps.onCond.Load(),
		},
	}
}

func sum(xs []uint64) uint64 {
	var t uint64
	for _, x := range xs {
		t += x
	}
	return t
}
