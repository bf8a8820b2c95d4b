package tracestress

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUOf is the CPU time another thread of this process has used, 0
// if it cannot be read: its CPU-time clock, the clock id glibc's
// pthread_getcpuclockid makes from a thread id (the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)).
func threadCPUOf(tid int) time.Duration {
	var ts unix.Timespec
	if tid <= 0 || unix.ClockGettime(int32(^tid<<3|6), &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
