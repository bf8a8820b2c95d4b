//go:build linux

package futex

import (
	"math"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// x/sys/unix has no FUTEX_* constants; these are linux/futex.h's
	// FUTEX_WAIT|FUTEX_PRIVATE_FLAG and FUTEX_WAKE|FUTEX_PRIVATE_FLAG.
	opWaitPrivate = 128
	opWakePrivate = 129
)

// WakeAll is the count to pass to a wake to wake every waiter.
const WakeAll = math.MaxInt32

// Wait blocks the calling thread while *addr == val, until a Wake on addr.
// It returns nil after a wake, and EAGAIN (the word no longer held val) or
// EINTR (a signal arrived) otherwise; either way the caller must re-check the
// condition it waits for, because the kernel does not say why it returned.
// Wait goes through the runtime's blocking-syscall path, so the Go scheduler
// hands the P to another thread while this one sleeps.
func Wait(addr *atomic.Uint32, val uint32) error {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWaitPrivate, uintptr(val), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// Wake wakes at most n threads waiting on addr and returns how many it woke.
// It never blocks, so it uses the raw syscall path and keeps its P.
func Wake(addr *atomic.Uint32, n int) int {
	if n > WakeAll {
		n = WakeAll
	}
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWakePrivate, uintptr(n), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// Mutex is a futex mutex with pthread semantics and no spinning (Drepper,
// "Futexes Are Tricky", mutex 3): the word is 0 when unlocked, 1 when locked
// and 2 when locked with possible sleepers. The zero value is unlocked.
type Mutex struct {
	state atomic.Uint32
}

// Lock acquires m and returns the number of futex calls it made (0 when
// uncontended).
func (m *Mutex) Lock() (calls int) {
	if m.state.CompareAndSwap(0, 1) {
		return 0
	}
	// Mark the mutex contended before sleeping, so the holder's Unlock
	// knows it must wake someone; a 0 returned by Swap means we own it
	// (marked 2, which at worst costs one unneeded wake later).
	for m.state.Swap(2) != 0 {
		_ = Wait(&m.state, 2)
		calls++
	}
	return calls
}

// Unlock releases m, waking one sleeper if the word says there may be one,
// and returns the number of futex calls it made.
func (m *Mutex) Unlock() (calls int) {
	switch m.state.Swap(0) {
	case 1:
		return 0
	case 2:
		Wake(&m.state, 1)
		return 1
	default:
		panic("futex: unlock of unlocked mutex")
	}
}

// Cond is a condition variable over a Mutex with pthread semantics: a wait
// atomically releases the mutex and sleeps; a wake while there are no
// waiters costs no system call. Waits may return spuriously (EINTR, or a
// wake meant for an earlier waiter), so callers wait in a loop. The zero
// value is ready to use.
type Cond struct {
	seq     atomic.Uint32 // bumped by every wake; waiters sleep on it
	waiters atomic.Int32
}

// Wait releases m, sleeps until a Wake (or spuriously), and re-acquires m.
// m must be held. It returns the number of futex calls made, including
// those of unlocking and re-locking m.
func (c *Cond) Wait(m *Mutex) (calls int) {
	c.waiters.Add(1)
	seq := c.seq.Load()
	calls += m.Unlock()
	_ = Wait(&c.seq, seq) // any return is a possible wake: the caller re-checks
	calls++
	c.waiters.Add(-1)
	return calls + m.Lock()
}

// Wake wakes up to n waiters (WakeAll for a broadcast) and returns the number
// of futex calls made: 0 when nobody waits, else 1. Wakers must hold the
// mutex, or have changed the awaited state under it before calling, so that
// a waiter registering later sees the change before it sleeps.
func (c *Cond) Wake(n int) (calls int) {
	if c.waiters.Load() == 0 {
		return 0
	}
	c.seq.Add(1)
	Wake(&c.seq, n)
	return 1
}

// Event is a binary semaphore owned by one waiting thread (a parker): Set
// makes the next, or the current, Wait return. The zero value is unset.
type Event struct {
	state atomic.Uint32 // 0 unset, 1 set, 2 the owner sleeps
}

const (
	eventUnset    = 0
	eventSet      = 1
	eventSleeping = 2
)

// Wait blocks until the event is set, then unsets it. Only one goroutine may
// wait on an Event. It returns the number of futex calls made.
func (e *Event) Wait() (calls int) {
	for {
		if e.state.CompareAndSwap(eventSet, eventUnset) {
			return calls
		}
		if e.state.CompareAndSwap(eventUnset, eventSleeping) || e.state.Load() == eventSleeping {
			_ = Wait(&e.state, eventSleeping)
			calls++
		}
	}
}

// Set sets the event, waking its owner if it sleeps, and returns the number
// of futex calls made (0 when the owner was not asleep).
func (e *Event) Set() (calls int) {
	if e.state.Swap(eventSet) == eventSleeping {
		Wake(&e.state, 1)
		return 1
	}
	return 0
}

// Sema is a counting semaphore. The zero value has count 0.
type Sema struct {
	count   atomic.Uint32
	waiters atomic.Int32
}

// Acquire takes one unit, sleeping while there is none, and returns the
// number of futex calls made.
func (s *Sema) Acquire() (calls int) {
	for {
		c := s.count.Load()
		if c > 0 {
			if s.count.CompareAndSwap(c, c-1) {
				return calls
			}
			continue
		}
		s.waiters.Add(1)
		_ = Wait(&s.count, 0) // returns at once if a Release raced us
		calls++
		s.waiters.Add(-1)
	}
}

// Release adds n units and wakes up to n sleepers; it returns the number of
// futex calls made (0 when nobody sleeps).
func (s *Sema) Release(n int) (calls int) {
	if n <= 0 {
		return 0
	}
	s.count.Add(uint32(n))
	if s.waiters.Load() == 0 {
		return 0
	}
	Wake(&s.count, n)
	return 1
}

// Gettid returns the calling thread's kernel thread id.
func Gettid() int { return unix.Gettid() }

// OnMainThread reports whether the calling thread is the process's main
// thread (its thread id is the process id).
func OnMainThread() bool { return unix.Gettid() == unix.Getpid() }

// ThreadAlive reports whether thread tid of this process still exists.
func ThreadAlive(tid int) bool {
	return unix.Tgkill(unix.Getpid(), tid, 0) != unix.ESRCH
}
