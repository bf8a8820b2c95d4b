//go:build !linux

package seeds

import (
	"runtime"
	"sync/atomic"
)

// ThreadID is 0: without gettid, every actor looks like one thread.
func ThreadID() int { return 0 }

// FutexWait stands in for the Linux futex by yielding: the caller re-checks
// its condition, so this is correct, but it polls; the protocols' wake-up
// figures are only faithful on Linux.
func FutexWait(addr *atomic.Uint32, val uint32) { runtime.Gosched() }

// FutexWake does nothing: FutexWait polls.
func FutexWake(addr *atomic.Uint32) {}
