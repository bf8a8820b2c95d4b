package protocols

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrInvalidOptions is wrapped by every error about a bad option value or
// run, from every protocol, so that a caller can tell a usage error from a
// failed run with one errors.Is.
var ErrInvalidOptions = errors.New("invalid options")

// invalidf returns an error wrapping ErrInvalidOptions.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}

// Bounds on the protocols' counts. Each is far above what a seed run uses,
// and every product of counts — a run's events, a comparison's events or
// items in all — is bounded too, with overflow-checked multiplication, so
// that a run that is accepted can also finish (in hours at most on the
// 2-core machine the seeds were reproduced on) and no count wraps.
const (
	// MaxReadyListProducers bounds a ready-list run's producer goroutines
	// (ReadyListRun.Producers, each entry of ReadyListOptions.Producers).
	MaxReadyListProducers = 4096
	// MaxReadyListEvents bounds the events each producer generates in a run
	// (ReadyListRun.Events, ReadyListOptions.Events): one producer may
	// generate the whole MaxReadyListTotalEvents.
	MaxReadyListEvents = MaxReadyListTotalEvents
	// MaxReadyListRepetitions bounds ReadyListOptions.Repetitions.
	MaxReadyListRepetitions = 1 << 20
	// MaxReadyListTotalEvents bounds the events of a run (producers ×
	// events) and of a whole CompareReadyList (repetitions × variants × 2
	// list kinds × the sum of the producer counts × events): 2^42, about
	// 4.4×10^12, some 3 hours at the fastest rate measured (430,000
	// events/ms on 2 cores), days at the slowest.
	MaxReadyListTotalEvents = 1 << 42

	// MaxPoolItems bounds the items of a Throughput run (PoolRun.Items,
	// PoolOptions.Items). The protocol queues them all before waiting, at
	// 16 bytes of queue each: 2^25 items (3.4 times the seed's 10,000,000)
	// is at most 512 MiB of queue, twice that when BatchSize is -1 (the
	// batch slice as well).
	MaxPoolItems = 1 << 25
	// MaxPoolRoundTrips bounds the round trips of a Latency run
	// (PoolRun.Items for Latency, PoolOptions.RoundTrips): 2^30, hours at
	// the 1–25 µs a round trip takes.
	MaxPoolRoundTrips = 1 << 30
	// MaxPoolRepetitions bounds PoolOptions.Repetitions.
	MaxPoolRepetitions = 1 << 20
	// MaxPoolTotalItems bounds a ComparePool's Throughput items in all
	// (repetitions × contenders × Items): 2^36, hours at the
	// goroutine-per-item baseline's few hundred nanoseconds an item.
	MaxPoolTotalItems = 1 << 36
	// MaxPoolTotalRoundTrips bounds a ComparePool's Latency round trips in
	// all (repetitions × contenders × RoundTrips): 2^32, hours at 1–10 µs
	// a round trip.
	MaxPoolTotalRoundTrips = 1 << 32

	// MaxTraceStressWriters bounds TraceStressOptions.Writers: 128 times
	// the seed's 32 writers, each a goroutine with its own buffers.
	MaxTraceStressWriters = 1 << 12
	// MaxTraceStressIterations bounds TraceStressOptions.Iterations, so
	// that the runs (iterations × 2 policies at most) and the duration of
	// them all are computed without overflow; the total duration is
	// bounded by time.Duration's range.
	MaxTraceStressIterations = 1 << 20
)

// mulBounded returns the product of xs, and false if it, or any partial
// product, exceeds limit (which also rules out overflow). Each x must be
// non-negative.
func mulBounded(limit uint64, xs ...int) (uint64, bool) {
	p := uint64(1)
	for _, x := range xs {
		hi, lo := bits.Mul64(p, uint64(x))
		if hi != 0 || lo > limit {
			return 0, false
		}
		p = lo
	}
	return p, true
}

// stopEvery is how many events a producer generates between two looks at
// the stop flag, and how many items a pool run enqueues between two looks
// at its context: one atomic load per
// 1024 events costs nothing measurable, and even the slowest path (a locked
// callback, about a microsecond per event under contention) sees a stop
// within milliseconds.
const stopEvery = 1024
