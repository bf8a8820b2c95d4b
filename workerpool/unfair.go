package workerpool

import (
	"runtime"
	"sync/atomic"
)

// unfairSema is the Spin policy's spin-then-park semaphore, after CoreCLR's
// UnfairSemaphore (as used by the DedicatedThreadPool seed). One 64-bit word,
// changed only by whole-word CAS, holds four 16-bit counts:
//
//	spinners   workers spinning in wait
//	forSpin    units released for spinners, not yet taken
//	waiters    workers blocked on the underlying semaphore
//	forWait    units released to blocked workers, not yet taken
//
// release(n) gives units to spinners first (they take them with a CAS, no
// system call), then to blocked waiters (one semaphore release for all of
// them), and leaves the rest in forSpin, where the next wait takes it at
// once. "Unfair": a recently idle spinner beats a worker that blocked long
// ago. A spinner gives up after round(spinBase/spinners) passes, so the more
// workers spin the sooner each parks, bounding the CPU they burn.
//
// Invariants: forSpin + forWait never exceeds the units released and not yet
// taken, which the pool keeps at most 2×workers; forWait ≤ waiters, so the
// underlying semaphore never holds more than workers units.
type unfairSema struct {
	_        [cacheLine]byte
	state    atomic.Uint64
	_        [cacheLine - 8]byte
	sem      semaphore
	yield    func()
	spinBase int
}

type semState struct{ spinners, forSpin, waiters, forWait uint16 }

func unpack(u uint64) semState {
	return semState{uint16(u), uint16(u >> 16), uint16(u >> 32), uint16(u >> 48)}
}

func (s semState) pack() uint64 {
	return uint64(s.spinners) | uint64(s.forSpin)<<16 | uint64(s.waiters)<<32 | uint64(s.forWait)<<48
}

func newUnfairSema(k kit, workers int) *unfairSema {
	return &unfairSema{sem: k.newSemaphore(workers), yield: k.yield, spinBase: 50 * runtime.NumCPU()}
}

// wait takes one unit, spinning before it blocks. It returns the number of
// futex calls made.
func (u *unfairSema) wait() (calls int) {
	for {
		old := u.state.Load()
		s := unpack(old)
		took := s.forSpin > 0
		if took {
			s.forSpin--
		} else {
			s.spinners++
		}
		if u.state.CompareAndSwap(old, s.pack()) {
			if took {
				return 0
			}
			break
		}
	}
	for spins := 0; ; {
		old := u.state.Load()
		s := unpack(old)
		switch {
		case s.forSpin > 0:
			s.forSpin--
			s.spinners--
			if u.state.CompareAndSwap(old, s.pack()) {
				return calls
			}
		case spins >= (u.spinBase+int(s.spinners)/2)/int(s.spinners):
			s.spinners--
			s.waiters++
			if u.state.CompareAndSwap(old, s.pack()) {
				calls += u.sem.acquire()
				u.leaveWaiters()
				return calls
			}
		default:
			u.yield()
			spins++
		}
	}
}

// leaveWaiters retires a waiter that the semaphore released.
func (u *unfairSema) leaveWaiters() {
	for {
		old := u.state.Load()
		s := unpack(old)
		s.waiters--
		s.forWait--
		if u.state.CompareAndSwap(old, s.pack()) {
			return
		}
	}
}

// release adds n units: to spinners first, then to blocked waiters, the
// rest for whoever waits next. It returns the number of futex calls made.
func (u *unfairSema) release(n int) (calls int) {
	for {
		old := u.state.Load()
		s := unpack(old)
		toSpin := min(n, max(int(s.spinners)-int(s.forSpin), 0))
		rest := n - toSpin
		toWait := min(rest, int(s.waiters)-int(s.forWait))
		rest -= toWait
		s.forSpin += uint16(toSpin + rest)
		s.forWait += uint16(toWait)
		if u.state.CompareAndSwap(old, s.pack()) {
			if toWait > 0 {
				calls = u.sem.release(toWait)
			}
			return calls
		}
	}
}
