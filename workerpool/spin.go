package workerpool

import (
	"runtime"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// Spinning: a Join whose jobs are nearly done, and an idle worker under the
// Spin policy, poll for a bounded time before they sleep, because a sleep
// and its wake-up cost far more than a tiny job: a park and a ready through
// the Go scheduler, or two futex calls and often a cross-CPU interrupt on
// the Threads backend. Both bounds are spinFor.
const spinFor = 20 * time.Microsecond

// pauseCycles is how many spin-wait hints (x86 PAUSE) a spinner executes
// between two polls: one. A PAUSE takes from about 10 to about 140 cycles
// depending on the CPU (tens of nanoseconds on the 2-core reference
// machine), which already keeps a polling loop off the memory bus and off
// a hyperthread sibling; more would add that much to every handoff and
// every Join that polls.
const pauseCycles = 1

// procyield is the runtime's spin-wait primitive, the one sync.Mutex spins
// with; the runtime keeps it available to packages outside the standard
// library (go.dev/issue/67401, runtime/stubs.go).
//
//go:linkname procyield runtime.procyield
func procyield(cycles uint32)

// spinBudget is the pool's count of free spinner slots: GOMAXPROCS−1 minus
// the workers spinning now, the handoff listener and the semaphore's
// spinners alike. A spinner holds a P, and the enqueuer it waits for needs
// one too, so spinners never take them all (the Go runtime bounds its
// spinning Ms for the same reason); with GOMAXPROCS 1 nobody spins.
type spinBudget struct{ free atomic.Int32 }

// take takes a slot if one is free; its taker gives it back when it stops
// spinning, before it sleeps.
func (b *spinBudget) take() bool {
	for {
		n := b.free.Load()
		if n <= 0 {
			return false
		}
		if b.free.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (b *spinBudget) give() { b.free.Add(1) }

// spunFor returns how long a spinner has spun since *start, starting the
// clock on its first call.
func spunFor(start *time.Time) time.Duration {
	if start.IsZero() {
		*start = time.Now()
		return 0
	}
	return time.Since(*start)
}

// refreshProcs reads GOMAXPROCS into p.procs. Reading it takes a runtime
// lock, so only paths about to sleep refresh it; GOMAXPROCS can change at
// run time (runtime.GOMAXPROCS, or the runtime's own updates from CPU
// limits).
func (p *Pool) refreshProcs() int {
	n := runtime.GOMAXPROCS(0)
	if old := p.procs.Swap(int32(n)); old != int32(n) {
		p.spin.free.Add(int32(n) - old) // may go negative until spinners stop
	}
	return n
}

// handoffRegime reports whether a Threads worker or Join that sleeps in the
// kernel now may have to wait, on waking, for the runtime to hand it a P:
// GOMAXPROCS is below workers + 1, so the threads sleeping in futex calls
// and the goroutines they serve cannot all keep a P of their own.
func (p *Pool) handoffRegime(procs int) bool {
	return p.opts.Backend == Threads && procs < len(p.workers)+1
}

// countHandoffSleep counts a wait that made futex calls (calls > 0: it
// went into the kernel; a wait whose wake had already come makes none) in
// the handoff regime (see Stats.HandoffSleeps); procs is GOMAXPROCS as
// read just before the wait.
func (p *Pool) countHandoffSleep(c *counters, procs, calls int) {
	if calls > 0 && p.handoffRegime(procs) {
		c.handoffSleeps.Add(1)
	}
}

// countWait counts a wait on a futex that made calls futex calls:
// FutexCalls, and HandoffSleeps as countHandoffSleep says.
func (p *Pool) countWait(c *counters, procs, calls int) {
	c.addFutex(calls)
	p.countHandoffSleep(c, procs, calls)
}
