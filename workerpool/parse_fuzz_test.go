package workerpool

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseBackend(f *testing.F) {
	parsetest.Fuzz(f, ParseBackend, ErrInvalidOptions, []Backend{Goroutines, Threads}, "THREADS", "thread")
}

func FuzzParseWakePolicy(f *testing.F) {
	parsetest.Fuzz(f, ParseWakePolicy, ErrInvalidOptions, []WakePolicy{Broadcast, Signal, Targeted, Spin}, "Broadcast", "spinning")
}

func FuzzParseQueueLayout(f *testing.F) {
	parsetest.Fuzz(f, ParseQueueLayout, ErrInvalidOptions, []QueueLayout{Shared, Sharded}, "SHARDED", "shard")
}

func TestNames(t *testing.T) {
	parsetest.Names(t, ParseBackend, BackendNames(), Goroutines, Threads, Native)
	parsetest.Names(t, ParseWakePolicy, WakePolicyNames(), Broadcast, Signal, Targeted, Spin)
	parsetest.Names(t, ParseMutexKind, MutexKindNames(), MutexNormal, MutexPI, MutexAdaptive)
}
