package trace

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseMemory(f *testing.F) {
	parsetest.Fuzz(f, ParseMemory, ErrInvalidOptions, []Memory{OffHeap, GoHeap}, "off-heap", "go-heap", "heap", "OffHeap")
}

func FuzzParseLockKind(f *testing.F) {
	parsetest.Fuzz(f, ParseLockKind, ErrInvalidOptions, []LockKind{MutexLock, SpinLock}, "Mutex", "spinlock")
}

func FuzzParsePolicy(f *testing.F) {
	parsetest.Fuzz(f, ParsePolicy, ErrInvalidOptions, []Policy{Lockless, Locked}, "lock", "LOCKED")
}
