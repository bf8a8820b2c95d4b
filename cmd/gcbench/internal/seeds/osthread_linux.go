//go:build linux

package seeds

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The futex operations on a process-private word (linux/futex.h:
// FUTEX_WAIT|FUTEX_PRIVATE_FLAG and FUTEX_WAKE|FUTEX_PRIVATE_FLAG).
const (
	futexWaitPrivate = 128
	futexWakePrivate = 129
)

// ThreadID is the calling OS thread's id (gettid), to show that actors
// locked to their threads run on distinct ones.
func ThreadID() int { return unix.Gettid() }

// FutexWait sleeps in the kernel while *addr == val (FUTEX_WAIT_PRIVATE).
// It returns on a wake, at once if *addr != val, or spuriously (EINTR), so
// the caller re-checks its condition. addr is a field of a heap object,
// which Go does not move; the word is accessed with sync/atomic elsewhere,
// so the race detector sees the happens-before edges the kernel provides.
func FutexWait(addr *atomic.Uint32, val uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), 0, 0, 0)
}

// FutexWake wakes one thread sleeping in FutexWait on addr.
func FutexWake(addr *atomic.Uint32) {
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, 1, 0, 0, 0)
}
