package poolbench

// Bounds on the protocol's counts. Each is far above what a seed run uses,
// and every product of counts is bounded too, with overflow-checked
// multiplication (seeds.MulBounded), so that a run that is accepted
// can also finish (in hours at most on the 2-core machine the seeds were
// reproduced on) and no count wraps.
const ( // MaxItems bounds the items of a Throughput run (Run.Items,
	// Options.Items). The protocol queues them all before waiting, at
	// 16 bytes of queue each: 2^25 items (3.4 times the seed's 10,000,000)
	// is at most 512 MiB of queue, twice that when BatchSize is -1 (the
	// batch slice as well).
	MaxItems = 1 << 25
	// MaxRoundTrips bounds the round trips of a Latency run
	// (Run.Items for Latency, Options.RoundTrips): 2^30, hours at
	// the 1–25 µs a round trip takes.
	MaxRoundTrips = 1 << 30
	// MaxRepetitions bounds Options.Repetitions.
	MaxRepetitions = 1 << 20
	// MaxTotalItems bounds a Compare's Throughput items in all
	// (repetitions × contenders × Items): 2^36, hours at the
	// goroutine-per-item baseline's few hundred nanoseconds an item.
	MaxTotalItems = 1 << 36
	// MaxTotalRoundTrips bounds a Compare's Latency round trips in
	// all (repetitions × contenders × RoundTrips): 2^32, hours at 1–10 µs
	// a round trip.
	MaxTotalRoundTrips = 1 << 32
)
