//go:build linux

package workerpool

import (
	"runtime"
	"sync/atomic"

	"github.com/gcbench/gcbench/workerpool/internal/futex"
)

// threadKit is the Threads backend: futex primitives, one OS thread per
// worker.
type threadKit struct{}

func newThreadKit() (kit, error) { return threadKit{}, nil }

// futexMutex is padded to a cache line of its own, as goMutex is.
type futexMutex struct {
	futex.Mutex
	_ [cacheLine - 4]byte
}

func (m *futexMutex) lock() int   { return m.Lock() }
func (m *futexMutex) unlock() int { return m.Unlock() }

type futexCond struct {
	futex.Cond
	m *futex.Mutex
}

func (c *futexCond) wait() int { return c.Wait(c.m) }

func (c *futexCond) wake(n int) int {
	return c.Wake(min(n, futex.WakeAll))
}

type futexParker struct{ futex.Event }

func (p *futexParker) park() int   { return p.Wait() }
func (p *futexParker) unpark() int { return p.Set() }

type futexSema struct{ futex.Sema }

func (s *futexSema) acquire() int      { return s.Acquire() }
func (s *futexSema) release(n int) int { return s.Release(n) }

func (threadKit) newMutex() mutex { return new(futexMutex) }
func (threadKit) newCond(m mutex) condVar {
	return &futexCond{m: &m.(*futexMutex).Mutex}
}
func (threadKit) newParker() parker          { return new(futexParker) }
func (threadKit) newSemaphore(int) semaphore { return new(futexSema) }

// pause never yields: the worker threads a Join waits for do not run on
// its P, and runtime.Gosched would only requeue the Join.
func (threadKit) pause(bool)                { procyield(pauseCycles) }
func (threadKit) threadExited(tid int) bool { return !futex.ThreadAlive(tid) }

// startWorker locks the new goroutine to its thread and never unlocks it,
// so the runtime terminates the thread when fn returns: no worker thread
// outlives its worker. The one exception is the process's main thread, which
// the runtime wedges instead of ending; a worker that finds itself there
// passes the job on to a fresh goroutine, keeping the main thread locked
// until the successor runs elsewhere so that it cannot land there too.
func (threadKit) startWorker(fn func(), tid *atomic.Int64) {
	started := make(chan struct{})
	var run func()
	run = func() {
		runtime.LockOSThread()
		if futex.OnMainThread() {
			go run()
			<-started
			runtime.UnlockOSThread()
			return
		}
		tid.Store(int64(futex.Gettid()))
		close(started)
		fn()
	}
	go run()
	<-started
}
