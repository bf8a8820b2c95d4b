package stats

import "errors"

// ErrInvalidInput is wrapped by every error of this package: a sample
// that cannot give the statistic asked for (empty, or a zero base).
var ErrInvalidInput = errors.New("stats: invalid input")
