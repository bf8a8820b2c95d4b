package tracestress

// Bounds on the protocol's counts. Each is far above what a seed run uses,
// and every product of counts is bounded too, with overflow-checked
// multiplication (seeds.MulBounded), so that a run that is accepted
// can also finish (in hours at most on the 2-core machine the seeds were
// reproduced on) and no count wraps.
const ( // MaxWriters bounds Options.Writers: 128 times
	// the seed's 32 writers, each a goroutine with its own buffers.
	MaxWriters = 1 << 12
	// MaxIterations bounds Options.Iterations, so
	// that the runs (iterations × 2 policies at most) and the duration of
	// them all are computed without overflow; the total duration is
	// bounded by time.Duration's range.
	MaxIterations = 1 << 20
)
