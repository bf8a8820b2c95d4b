//go:build !linux

package trace

import "runtime"

// osYield has no raw sched_yield to call here; the Go scheduler's yield
// stands in, so the spin lock's figures are only faithful on Linux.
func osYield() { runtime.Gosched() }
