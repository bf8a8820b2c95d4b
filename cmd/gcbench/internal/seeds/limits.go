package seeds

import (
	"errors"
	"fmt"
	"math/bits"
)

// ErrInvalidOptions is wrapped by every error about a bad option value or
// run, from every protocol, so that a caller can tell a usage error from a
// failed run with one errors.Is.
var ErrInvalidOptions = errors.New("invalid options")

// Invalidf returns an error wrapping ErrInvalidOptions.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}

// MulBounded returns the product of xs, and false if it, or any partial
// product, exceeds limit (which also rules out overflow). Each x must be
// non-negative.
func MulBounded(limit uint64, xs ...int) (uint64, bool) {
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

// StopEvery is how many events a producer generates between two looks at
// the stop flag, and how many items a pool run enqueues between two looks
// at its context: one atomic load per
// 1024 events costs nothing measurable, and even the slowest path (a locked
// callback, about a microsecond per event under contention) sees a stop
// within milliseconds.
const StopEvery = 1024
