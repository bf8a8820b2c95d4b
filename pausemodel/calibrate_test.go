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
// (getrusage) stands still there unless a tick falls into the loop.
func TestThreadCPUCountsTheRunningSlice(t *testing.T) {
	checkClockGrowsInBusyLoops(t, "threadCPU", threadCPU)
}

// checkClockGrowsInBusyLoops runs ten short busy loops, each right after a
// sleep, on one thread. A loop the machine descheduled may show less, so
// seven of them must show a third of their length on clock.
func checkClockGrowsInBusyLoops(t *testing.T, name string, clock func() time.Duration) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const loop = 100 * time.Microsecond
	grew := 0
	for range 10 {
		time.Sleep(time.Millisecond)
		before := clock()
		for start := time.Now(); time.Since(start) < loop; {
		}
		if clock()-before >= loop/3 {
			grew++
		}
	}
	if grew < 7 {
		t.Fatalf("%s grew by a third of a %v busy loop in %d of 10 loops, want at least 7", name, loop, grew)
	}
}

// TestWakeCostsCountTheUnlocksWake: a worker woken onto the enqueuer's
// CPU preempts it under the lock, so the enqueue's unlock makes a second
// wake call; solving with each measurement's own count of calls gives the
// same costs whether the unlock woke anyone or not.
func TestWakeCostsCountTheUnlocksWake(t *testing.T) {
	const enqueue, call, per = 400 * time.Nanosecond, 1300 * time.Nanosecond, 700 * time.Nanosecond
	measured := func(woken, calls int) wakeCall {
		extra := time.Duration(calls - 1)
		return wakeCall{cpu: enqueue + call + time.Duration(woken)*per + extra*(call+per), calls: calls}
	}
	for _, calls := range [][2]int{{1, 1}, {2, 2}, {2, 1}, {1, 2}} {
		gotCall, gotPer := wakeCosts(enqueue, measured(1, calls[0]), measured(8, calls[1]))
		if gotCall != call || gotPer != per {
			t.Errorf("calls %v: wake call %v + %v per thread, want %v + %v", calls, gotCall, gotPer, call, per)
		}
	}
}
