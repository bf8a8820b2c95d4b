package workerpool

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The pool's algorithm is written once against these primitives; each
// backend supplies them. Every operation returns the number of futex system
// calls it made, so that the caller can add them to its own counters (the
// Goroutines backend always returns 0).

// mutex is the queue lock.
type mutex interface {
	lock() int
	unlock() int
}

// condVar is a condition variable over the queue lock. wait may return
// spuriously; wake(n) wakes up to n waiters, all of them if n == wakeAll.
type condVar interface {
	wait() int // the lock must be held; it is held again on return
	wake(n int) int
}

// parker is a binary semaphore owned by one worker (Targeted policy).
type parker interface {
	park() int
	unpark() int
}

// semaphore is a counting semaphore: the blocking half of unfairSema.
type semaphore interface {
	acquire() int
	release(n int) int
}

// kit builds one backend's primitives for a pool.
type kit interface {
	newMutex() mutex
	newCond(m mutex) condVar
	newParker() parker
	newSemaphore(capacity int) semaphore
	// startWorker runs fn on a new worker; for Threads, on a new OS thread
	// that exits with fn. tid receives the thread id (0 if none) before fn
	// runs.
	startWorker(fn func(), tid *atomic.Int64)
	// pause is one pause between two polls of a spinning Join. mayYield
	// says that the jobs it waits for are still queued: a goroutine worker
	// woken for them was readied onto this P and runs only if the Join
	// yields it; a worker thread has its own and never needs ours.
	pause(mayYield bool)
	// threadExited reports whether a worker thread id is gone.
	threadExited(tid int) bool
}

const wakeAll = 1 << 30

// goKit is the Goroutines backend.
type goKit struct{}

// goMutex is padded to a cache line of its own: the lock word moves between
// CPUs with every acquisition and must not drag its neighbours along (a
// sharded pool allocates one per shard, one after another).
type goMutex struct {
	sync.Mutex
	_ [cacheLine - 8]byte
}

func (m *goMutex) lock() int   { m.Lock(); return 0 }
func (m *goMutex) unlock() int { m.Unlock(); return 0 }

type goCond struct{ c sync.Cond }

func (c *goCond) wait() int { c.c.Wait(); return 0 }

func (c *goCond) wake(n int) int {
	if n >= wakeAll {
		c.c.Broadcast()
		return 0
	}
	for range n {
		c.c.Signal()
	}
	return 0
}

type goParker chan struct{}

func (p goParker) park() int { <-p; return 0 }

func (p goParker) unpark() int {
	select {
	case p <- struct{}{}:
	default:
	}
	return 0
}

// goSema is a channel used as a semaphore. Its capacity bounds the units
// outstanding at once, which unfairSema keeps below the worker count, so a
// release never blocks.
type goSema chan struct{}

func (s goSema) acquire() int { <-s; return 0 }

func (s goSema) release(n int) int {
	for range n {
		s <- struct{}{}
	}
	return 0
}

func (goKit) newMutex() mutex                          { return new(goMutex) }
func (goKit) newCond(m mutex) condVar                  { return &goCond{c: sync.Cond{L: &m.(*goMutex).Mutex}} }
func (goKit) newParker() parker                        { return make(goParker, 1) }
func (goKit) newSemaphore(capacity int) semaphore      { return make(goSema, capacity) }
func (goKit) startWorker(fn func(), tid *atomic.Int64) { go fn() }
func (goKit) pause(mayYield bool) {
	if mayYield {
		runtime.Gosched()
	} else {
		procyield(pauseCycles)
	}
}
func (goKit) threadExited(int) bool { return true }
