package workerpool

import (
	"sync/atomic"
	"time"
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
// system call and no scheduler), then to blocked waiters (one semaphore
// release for all of them), and leaves the rest in forSpin, where the next
// wait takes it at once. "Unfair": a recently idle spinner beats a worker
// that blocked long ago.
//
// A spinner polls the word with spin-wait hints between polls, holding its
// thread and P, for at most spinFor, then blocks. On the Goroutines backend
// it yields the P every 64 polls (kit.pause): a goroutine that yielded to
// it, such as a Join letting a readied worker run, waits in the global run
// queue, which no idle P is woken to serve. CoreCLR's spinners slept
// with Sleep(0) between polls; the Go equivalent, runtime.Gosched, is a
// scheduler round trip per poll on the Goroutines backend and, for a
// goroutine locked to its thread (Threads), a handoff of the P to another
// thread and back — tens of microseconds, which made Spin the slowest
// policy for round trips. Spinning instead holds a P, so a wait spins only
// with a slot of the pool's spinner budget, which leaves a P to the
// enqueuers whose releases the spinners wait for.
//
// Invariants: forSpin + forWait never exceeds the units released and not yet
// taken, which the pool keeps at most 2×workers; forWait ≤ waiters, so the
// underlying semaphore never holds more than workers units; spinners counts
// only waits allowed to spin.
type unfairSema struct {
	_      [cacheLine]byte
	state  atomic.Uint64
	_      [cacheLine - 8]byte
	sem    semaphore
	budget *spinBudget // slots a wait needs to spin
	kit    kit
}

type semState struct{ spinners, forSpin, waiters, forWait uint16 }

func unpack(u uint64) semState {
	return semState{uint16(u), uint16(u >> 16), uint16(u >> 32), uint16(u >> 48)}
}

func (s semState) pack() uint64 {
	return uint64(s.spinners) | uint64(s.forSpin)<<16 | uint64(s.waiters)<<32 | uint64(s.forWait)<<48
}

func newUnfairSema(k kit, workers int, budget *spinBudget) *unfairSema {
	return &unfairSema{sem: k.newSemaphore(workers), budget: budget, kit: k}
}

// wait takes one unit: at once if one is free for spinners, else by
// spinning if spin and the budget has a slot, else by blocking. It returns
// the number of futex calls made and whether it blocked.
func (u *unfairSema) wait(spin bool) (calls int, blocked bool) {
	maySpin := spin && u.budget.take()
	for {
		old := u.state.Load()
		s := unpack(old)
		took, spin := s.forSpin > 0, maySpin
		switch {
		case took:
			s.forSpin--
		case spin:
			s.spinners++
		default:
			s.waiters++
		}
		if !u.state.CompareAndSwap(old, s.pack()) {
			continue
		}
		switch {
		case took:
			if maySpin {
				u.budget.give()
			}
			return 0, false
		case spin:
			return u.spin()
		}
		return u.block(), true
	}
}

// spin polls for a unit released to spinners for at most spinFor, then
// turns into a waiter and blocks. It gives its budget slot back when it
// stops spinning either way.
func (u *unfairSema) spin() (calls int, blocked bool) {
	var start time.Time // read every 64 polls only: a clock read costs tens of ns
	for i := 1; ; i++ {
		old := u.state.Load()
		s := unpack(old)
		switch {
		case s.forSpin > 0:
			s.forSpin--
			s.spinners--
			if u.state.CompareAndSwap(old, s.pack()) {
				u.budget.give()
				return 0, false
			}
		case i%64 == 0 && spunFor(&start) > spinFor:
			s.spinners--
			s.waiters++
			if u.state.CompareAndSwap(old, s.pack()) {
				u.budget.give()
				return u.block(), true
			}
		case i%64 == 0:
			u.kit.pause(true) // let goroutines waiting for this P run
		default:
			procyield(pauseCycles)
		}
	}
}

// block sleeps on the semaphore as a registered waiter until a release
// meant for waiters, then retires the waiter.
func (u *unfairSema) block() (calls int) {
	calls = u.sem.acquire()
	for {
		old := u.state.Load()
		s := unpack(old)
		s.waiters--
		s.forWait--
		if u.state.CompareAndSwap(old, s.pack()) {
			return calls
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
