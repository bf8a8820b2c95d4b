package trace

import "golang.org/x/sys/unix"

// osYield is SwitchToThread as CoreCLR's PAL implements it on Linux: a
// sched_yield system call. It is made raw (no entersyscall), so the thread
// keeps its Go processor, as a native thread keeps its CPU claim: the
// kernel, not the Go scheduler, decides whether another thread runs.
func osYield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
