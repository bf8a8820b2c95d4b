package pausemodel

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadCPUCountsTheRunningSlice: a thread that runs without a
// scheduler event (a busy loop on time.Now, which makes no system call
// where the vDSO serves it) must see its CPU time grow during the loop. A
// clock that reports the account as of the last scheduler update
// (getrusage) stands still there unless a tick falls into the loop. Ten
// short loops, each after a sleep; a loop the machine descheduled may show
// less, so seven of them must show a third of their length.
func TestThreadCPUCountsTheRunningSlice(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const loop = 100 * time.Microsecond
	grew := 0
	for range 10 {
		time.Sleep(time.Millisecond)
		before := threadCPU()
		for start := time.Now(); time.Since(start) < loop; {
		}
		if threadCPU()-before >= loop/3 {
			grew++
		}
	}
	if grew < 7 {
		t.Fatalf("threadCPU grew by a third of a %v busy loop in %d of 10 loops, want at least 7", loop, grew)
	}
}

// TestProcessCPUCoversTheCallingThread: the process clock counts the
// calling thread's running slice too (measureFutile subtracts the one from
// the other).
func TestProcessCPUCoversTheCallingThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const loop = 100 * time.Microsecond
	grew := 0
	for range 10 {
		time.Sleep(time.Millisecond)
		before := processCPU()
		for start := time.Now(); time.Since(start) < loop; {
		}
		if processCPU()-before >= loop/3 {
			grew++
		}
	}
	if grew < 7 {
		t.Fatalf("processCPU grew by a third of a %v busy loop in %d of 10 loops, want at least 7", loop, grew)
	}
}
