//go:build !linux

package protocols

import (
	"runtime"
	"sync/atomic"
)

// threadID is 0: without gettid, every actor looks like one thread.
func threadID() int { return 0 }

// futexWait stands in for the Linux futex by yielding: the caller re-checks
// its condition, so this is correct, but it polls; the protocols' wake-up
// figures are only faithful on Linux.
func futexWait(addr *atomic.Uint32, val uint32) { runtime.Gosched() }

// futexWake does nothing: futexWait polls.
func futexWake(addr *atomic.Uint32) {}
