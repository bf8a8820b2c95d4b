package trace

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// LockKind selects the implementation of a session's manager lock.
type LockKind int

const (
	// MutexLock is sync.Mutex: a waiter spins briefly, then parks, giving
	// its processor to other goroutines (the reader among them).
	MutexLock LockKind = iota
	// SpinLock never parks: a waiter polls the lock word and yields its
	// processor every spinYieldEvery polls, like the spin lock that guards
	// EventPipe's buffer manager (ep_rt_spin_lock; CoreCLR's SpinLock spins
	// with YieldProcessor and then switches threads). Waiters keep using
	// CPU, which is what turns a queue on the lock into a caravan.
	SpinLock
)

// String returns "mutex" or "spin" (LockKind(n) for another value).
func (k LockKind) String() string {
	switch k {
	case MutexLock:
		return "mutex"
	case SpinLock:
		return "spin"
	}
	return fmt.Sprintf("LockKind(%d)", int(k))
}

// ParseLockKind parses "mutex" or "spin".
func ParseLockKind(s string) (LockKind, error) {
	switch s {
	case "mutex":
		return MutexLock, nil
	case "spin":
		return SpinLock, nil
	}
	return 0, errorf("lock %q (want mutex or spin)", s)
}

const spinYieldEvery = 64

// managerLock is the session's manager lock, of either kind. The spin
// word uses sync/atomic, so the race detector sees its happens-before
// edges.
type managerLock struct {
	spin bool
	mu   sync.Mutex
	word atomic.Int32
}

func (l *managerLock) Lock() {
	if !l.spin {
		l.mu.Lock()
		return
	}
	for i := 1; ; i++ {
		if l.word.Load() == 0 && l.word.CompareAndSwap(0, 1) {
			return
		}
		if i%spinYieldEvery == 0 {
			runtime.Gosched()
		}
	}
}

func (l *managerLock) Unlock() {
	if !l.spin {
		l.mu.Unlock()
		return
	}
	l.word.Store(0)
}
