// Package futex provides the Linux futex primitives behind workerpool's
// Threads backend: a mutex, a condition variable, a per-thread binary event
// and a counting semaphore, each built on FUTEX_WAIT_PRIVATE and
// FUTEX_WAKE_PRIVATE over a uint32 word that is only ever read and written
// with sync/atomic.
//
// Using sync/atomic for every access to a futex word matters twice: the
// kernel's wait/wake protocol needs the compare-and-swap semantics, and the
// race detector only sees happens-before edges through Go synchronization, so
// atomics give it the same edges the kernel provides (an unlock's Swap
// releases, a lock's CAS or Swap acquires).
//
// Every blocking operation returns the number of futex system calls it made,
// so callers can count exactly what a wake cost. A futex wait that returns
// EINTR or EAGAIN is never taken as a wake: callers re-check their condition.
//
// On systems other than Linux the package is empty; workerpool refuses the
// Threads backend there.
package futex
