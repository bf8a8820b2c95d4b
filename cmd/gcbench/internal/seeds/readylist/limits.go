package readylist

// Bounds on the protocol's counts. Each is far above what a seed run uses,
// and every product of counts is bounded too, with overflow-checked
// multiplication (seeds.MulBounded), so that a run that is accepted
// can also finish (in hours at most on the 2-core machine the seeds were
// reproduced on) and no count wraps.
const (
	// MaxProducers bounds a ready-list run's producer goroutines
	// (Run.Producers, each entry of Options.Producers).
	MaxProducers = 4096
	// MaxEvents bounds the events each producer generates in a run
	// (Run.Events, Options.Events): one producer may
	// generate the whole MaxTotalEvents.
	MaxEvents = MaxTotalEvents
	// MaxRepetitions bounds Options.Repetitions.
	MaxRepetitions = 1 << 20
	// MaxTotalEvents bounds the events of a run (producers ×
	// events) and of a whole Compare (repetitions × variants × 2
	// list kinds × the sum of the producer counts × events): 2^42, about
	// 4.4×10^12, some 3 hours at the fastest rate measured (430,000
	// events/ms on 2 cores), days at the slowest.
	MaxTotalEvents = 1 << 42
)
