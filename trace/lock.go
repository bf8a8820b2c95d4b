package trace

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/gcbench/gcbench/internal/enum"
)

// LockKind selects the implementation of a session's locks: the manager
// lock, and each writer's own lock under the EventPipeReader kind.
type LockKind int

const (
	// MutexLock is sync.Mutex: a waiter spins briefly, then parks, giving
	// its processor to other goroutines (the reader among them).
	MutexLock LockKind = iota
	// SpinLock is CoreCLR's SpinLock (dotnet/runtime
	// src/coreclr/vm/spinlock.cpp), which guards EventPipe's buffer manager
	// (its rt_lock) and every EventPipe thread's state: test-and-test-and-set;
	// a waiter polls the lock word in runs of 10,000 normalized pause steps
	// (YieldProcessorNormalized, about 0.4 ms a run), tries again after
	// each run, and between runs yields the CPU with a raw sched_yield
	// system call (SwitchToThread), keeping its Go processor; only after
	// 32K runs does it also sleep 1 ms a run. A waiter stays runnable all
	// along, which is what turns a queue on the lock into a caravan. It
	// never calls runtime.Gosched: on a goroutine locked to its thread,
	// that hands the processor off and sleeps the thread in a futex, which
	// is a parking lock in effect.
	//
	// It is meant for goroutines locked to OS threads with GOMAXPROCS at
	// least the threads (as trace-stress runs), where the kernel alone
	// decides who runs. Elsewhere it is still correct, if slow: a holder
	// the Go scheduler preempted runs again when the runtime preempts the
	// waiters on its processor in turn (every 10 ms or so).
	SpinLock
)

var lockKindNames = enum.New[LockKind]("LockKind", "lock kind", ErrInvalidOptions, "mutex", "spin")

// String returns "mutex" or "spin" (LockKind(n) for another value).
func (k LockKind) String() string { return lockKindNames.String(k) }

// ParseLockKind parses "mutex" or "spin", ignoring case.
func ParseLockKind(s string) (LockKind, error) { return lockKindNames.Parse(s) }

// LockKindNames lists the names ParseLockKind accepts, in value order.
func LockKindNames() []string { return lockKindNames.List() }

// MarshalText returns k's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (k LockKind) MarshalText() ([]byte, error) { return lockKindNames.Marshal(k) }

// UnmarshalText sets k from a name ParseLockKind takes.
func (k *LockKind) UnmarshalText(b []byte) error { return lockKindNames.Unmarshal(b, k) }

// The spin lock's waiting, after CoreCLR's SpinLock::SpinToAcquire and
// __SwitchToThread (dotnet/runtime src/coreclr/vm/spinlock.cpp and
// src/coreclr/vm/hosting.cpp).
const (
	// spinPolls is how many pause-and-poll steps a waiter makes before it
	// tries the lock again and yields: CoreCLR's 10,000
	// YieldProcessorNormalized calls. A step is pausesPerPoll() PAUSEs,
	// normalized as CoreCLR normalizes it (yieldprocessornormalized.h):
	// at least minPollTime, so a run lasts about 0.4 ms whatever a PAUSE
	// costs on the CPU (from a few to over a hundred cycles).
	spinPolls   = 10000
	minPollTime = 37 * time.Nanosecond // CoreCLR's MinNsPerNormalizedYield
	// sleepAfterRounds is how many rounds of polls and yields a waiter
	// makes before each further round also sleeps sleepFor: CoreCLR's
	// SLEEP_START_THRESHOLD, 32K rounds, about 13 s of CPU, which a waiter
	// seldom reaches. A holder that the Go scheduler rather than the kernel
	// preempted (possible only when goroutines outnumber processors) does
	// not need it: the runtime preempts the spinning waiters in turn
	// within about 10 ms each, and the holder runs.
	sleepAfterRounds = 32 << 10
	// sleepFor is CoreCLR's Sleep(1).
	sleepFor = time.Millisecond
)

// procyield is the runtime's spin-wait primitive (PAUSE on amd64, YIELD on
// arm64), the one sync.Mutex spins with; the runtime keeps it available to
// packages outside the standard library (go.dev/issue/67401,
// runtime/stubs.go).
//
//go:linkname procyield runtime.procyield
func procyield(cycles uint32)

// pausesPerPoll is how many PAUSEs make one normalized poll step,
// measured once per process: minPollTime over a PAUSE's cost, rounded, at
// least 1.
var pausesPerPoll = sync.OnceValue(func() uint32 {
	const n = 2000
	best := time.Duration(math.MaxInt64)
	for range 3 { // the fastest of three: an interrupted measurement only overstates
		t0 := time.Now()
		procyield(n)
		best = min(best, time.Since(t0))
	}
	perPause := float64(best) / n
	return uint32(max(1, math.Round(float64(minPollTime)/max(perPause, 0.1))))
})

// lockWord is a lock of either kind. The spin word uses sync/atomic, so
// the race detector sees its happens-before edges.
type lockWord struct {
	spin bool
	mu   sync.Mutex
	word atomic.Int32
}

// TryLock takes the lock if it is free, without waiting: for the spin
// kind, CoreCLR's GetLockNoWait, a load before the atomic exchange so that
// pollers do not pull the cache line into exclusive state for nothing.
func (l *lockWord) TryLock() bool {
	if !l.spin {
		return l.mu.TryLock()
	}
	return l.word.Load() == 0 && l.word.CompareAndSwap(0, 1)
}

// Lock takes the lock, waiting as its kind does.
func (l *lockWord) Lock() { l.LockUnless(nil) }

// LockUnless takes the lock as Lock does, except that a spin waiter gives
// up, without the lock, once quit (if not nil) is set, and reports false;
// it looks at quit once a run of polls (about 0.4 ms of its CPU). A mutex
// waiter parks, so a queue of them drains at the pace of wake-ups, and it
// waits for the lock whatever quit says.
func (l *lockWord) LockUnless(quit *atomic.Bool) bool {
	if !l.spin {
		l.mu.Lock()
		return true
	}
	return l.TryLock() || l.spinToAcquire(quit)
}

// spinToAcquire is SpinLock::SpinToAcquire: runs of pause-and-poll, each
// followed by one try and, if that fails, a yield of the thread. It
// returns false, without the lock, if quit is set (CoreCLR's waiters have
// no such exit: see Session.Stop for why this one does).
func (l *lockWord) spinToAcquire(quit *atomic.Bool) bool {
	pauses := pausesPerPoll()
	for rounds := 0; ; rounds++ {
		for i := 0; i < spinPolls; i++ {
			procyield(pauses)
			if l.word.Load() == 0 {
				break
			}
		}
		if l.TryLock() {
			return true
		}
		if quit != nil && quit.Load() {
			return false
		}
		if rounds >= sleepAfterRounds {
			time.Sleep(sleepFor)
		}
		osYield()
	}
}

// Unlock releases the lock.
func (l *lockWord) Unlock() {
	if !l.spin {
		l.mu.Unlock()
		return
	}
	l.word.Store(0)
}
