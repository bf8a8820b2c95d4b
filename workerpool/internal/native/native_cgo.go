//go:build cgo && linux

package native

/*
#cgo CFLAGS: -O2 -Wall
#cgo LDFLAGS: -lpthread
#include <stdlib.h>
#include "pool.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"syscall"
	"unsafe"
)

// defaultProcTask is where Snapshot finds the workers' threads (proc(5)).
const defaultProcTask = "/proc/self/task"

// Available reports whether this build has the native pool.
const Available = true

// Pool is a running native pool. Its methods are safe for concurrent use
// until Close; after Close every method but Close and Stats fails or does
// nothing.
type Pool struct {
	closeMu sync.Mutex   // serializes Close: np_close joins the threads once
	life    sync.RWMutex // readers: calls into C; Close frees the C pool under the write lock
	c       *C.np_pool   // nil once freed
	handle  cgo.Handle
	workers int
	proc    *C.char // Config.ProcTask, C's copy; freed with the pool
	snapMu  sync.Mutex
	snap    C.np_snap // Snapshot's buffer, under snapMu: one made per call would escape to the heap
	last    Stats     // the counters at free
}

// New starts cfg.Workers pthreads and returns once each has made its first
// callback into Go (a C thread's first callback costs tens of µs: it gets
// an M) and waits for work.
func New(cfg Config) (*Pool, error) {
	if rc := C.np_mutex_supported(C.int(cfg.Mutex)); rc != 0 {
		return nil, fmt.Errorf("mutex kind %d: %w", cfg.Mutex, syscall.Errno(rc))
	}
	p := &Pool{workers: cfg.Workers}
	p.handle = cgo.NewHandle(cfg.Run)
	dir := cfg.ProcTask
	if dir == "" {
		dir = defaultProcTask
	}
	p.proc = C.CString(dir) // made here, so that Snapshot allocates nothing
	var errno C.int
	gated := 0
	if cfg.Gated {
		gated = 1
	}
	p.c = C.np_new(C.int(cfg.Workers), C.int(cfg.Mutex), C.int(cfg.Wake), C.int(gated), C.uintptr_t(p.handle), &errno)
	if p.c == nil {
		p.handle.Delete()
		C.free(unsafe.Pointer(p.proc))
		return nil, fmt.Errorf("starting %d pthreads: %w", cfg.Workers, syscall.Errno(errno))
	}
	return p, nil
}

//export gcbenchNativeRun
func gcbenchNativeRun(h C.uintptr_t, e C.uint64_t, worker C.int) {
	cgo.Handle(h).Value().(func(uint64, int))(uint64(e), int(worker))
}

//export gcbenchNativeWarm
func gcbenchNativeWarm(C.uintptr_t, C.int) {}

// Push queues entries under one lock acquisition, with one wake decision;
// start also opens the gate in the same hold and wakes after the unlock.
func (p *Pool) Push(entries []uint64, start bool) error {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return ErrClosed
	}
	s := 0
	if start {
		s = 1
	}
	var ptr *C.uint64_t
	if len(entries) > 0 {
		ptr = (*C.uint64_t)(unsafe.Pointer(&entries[0]))
	}
	switch C.np_push(p.c, ptr, C.int(len(entries)), C.int(s)) {
	case -1:
		return ErrClosed
	case -2:
		return ErrNoMemory
	}
	return nil
}

// Start opens the gate and applies the wake policy to the queued entries.
func (p *Pool) Start() {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c != nil {
		C.np_start(p.c)
	}
}

// Generation returns the interrupt generation, for Join: read it, then
// check the caller's cancellation, then Join, so that no Interrupt falls
// between the check and the wait.
func (p *Pool) Generation() uint64 {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return 0
	}
	return uint64(C.np_gen(p.c))
}

// Join waits until every entry queued before it has run, or until an
// Interrupt moves the generation past gen; it reports whether they ran. A
// done Join of a gated pool closes the gate, as SGen's sgen_workers_join
// does. Called from a job of p (one of p's threads) it returns
// ErrOnWorker at once: it would wait for itself.
func (p *Pool) Join(gen uint64) (bool, error) {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return true, nil
	}
	switch C.np_join(p.c, C.uint64_t(gen)) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, ErrOnWorker
}

// OnWorker reports whether the caller runs on one of p's worker threads:
// inside one of its jobs (a goroutine that a job started runs elsewhere).
func (p *Pool) OnWorker() bool {
	p.life.RLock()
	defer p.life.RUnlock()
	return p.c != nil && C.np_on_worker(p.c) == 1
}

// Interrupt makes every Join in progress return false.
func (p *Pool) Interrupt() {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c != nil {
		C.np_interrupt(p.c)
	}
}

// HoldMutex takes the pool's mutex and returns the function that releases
// it, uncounted. It is for tests that stand in for a convoy on the mutex
// (thousands of workers queued on a PI mutex): the caller must hold its OS
// thread (runtime.LockOSThread) until it has released, since a PI mutex is
// released only by its owner.
func (p *Pool) HoldMutex() (release func()) {
	p.life.RLock()
	C.np_hold_mutex(p.c)
	return func() {
		C.np_release_mutex(p.c)
		p.life.RUnlock()
	}
}

// Discard removes every queued entry, appends them to dst and returns it.
func (p *Pool) Discard(dst []uint64) []uint64 {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return dst
	}
	var buf [64]uint64
	for {
		n := int(C.np_discard(p.c, (*C.uint64_t)(unsafe.Pointer(&buf[0])), C.int(len(buf))))
		dst = append(dst, buf[:n]...)
		if n < len(buf) {
			return dst
		}
	}
}

// Close refuses new entries, lets every queued one run, joins every worker
// thread and frees the pool. Only the first call does anything; a call
// from a job of p (one of p's threads) does nothing and returns
// ErrOnWorker: it would join, then free, the thread it runs on.
func (p *Pool) Close() error {
	if p.OnWorker() {
		return ErrOnWorker
	}
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	p.life.RLock()
	c := p.c
	p.life.RUnlock()
	if c == nil {
		return nil
	}
	// Not under the write lock: a job still running may call Push (and get
	// ErrClosed) or a Join may wait for it.
	if C.np_close(c) != 0 {
		return ErrOnWorker
	}
	p.life.Lock()
	defer p.life.Unlock()
	p.last = p.read()
	C.np_free(p.c)
	p.c = nil
	p.handle.Delete()
	C.free(unsafe.Pointer(p.proc))
	p.proc = nil
	return nil
}

// Stats returns the counters.
func (p *Pool) Stats() Stats {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		s := p.last
		s.JobsRun = append([]uint64(nil), s.JobsRun...)
		return s
	}
	return p.read()
}

func (p *Pool) read() Stats {
	var s C.np_stats
	jobs := make([]uint64, p.workers)
	C.np_stats_read(p.c, &s, (*C.uint64_t)(unsafe.Pointer(&jobs[0])))
	return Stats{
		EnqueueLocks: uint64(s.enq_locks), EnqueueWakes: uint64(s.enq_wakes),
		Locks: uint64(s.locks), Wakes: uint64(s.wakes),
		Woken: uint64(s.woken), Futile: uint64(s.futile),
		JoinSleeps:      uint64(s.join_sleeps),
		WokenOnWakerCPU: uint64(s.woken_on_waker_cpu), WokenElsewhere: uint64(s.woken_elsewhere),
		WokenUnclassified: uint64(s.woken_unclassified),
		JobsRun:           jobs,
	}
}

// Snapshot classifies the workers (see Snap) from their threads'
// stat and syscall files under Config.ProcTask, with the calling thread's
// CPU as "the caller's". It takes no mutex and allocates nothing; it
// reads two files per worker that is not runnable, one per worker that
// is. It returns ErrSnapshot if any read failed, ErrClosed after Close.
func (p *Pool) Snapshot() (Snap, error) {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return Snap{}, ErrClosed
	}
	p.snapMu.Lock()
	defer p.snapMu.Unlock()
	s := &p.snap
	if C.np_snapshot(p.c, p.proc, s) != 0 {
		return Snap{}, ErrSnapshot
	}
	return Snap{
		RunnableOnCallerCPU: int(s.runnable_on_caller_cpu), RunnableElsewhere: int(s.runnable_elsewhere),
		AsleepOnMutex: int(s.asleep_on_mutex), AsleepOnWorkCond: int(s.asleep_on_work_cond),
	}, nil
}

// ThreadIDs returns the workers' OS thread ids, or nil after Close.
func (p *Pool) ThreadIDs() []int {
	p.life.RLock()
	defer p.life.RUnlock()
	if p.c == nil {
		return nil
	}
	tids := make([]C.int, p.workers)
	C.np_tids(p.c, &tids[0])
	out := make([]int, len(tids))
	for i, t := range tids {
		out[i] = int(t)
	}
	return out
}
