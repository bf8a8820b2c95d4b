// Package canceltest holds the helpers that the tests of every
// cancellable comparison share (the seed protocols', and gcsim.Compare's):
// contexts cancelled after a time or after a number of runs, and the bound
// within which a cancelled run must return.
package canceltest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Liveness is how soon after a cancel a run must return: generous, since
// it checks that the run stops, not how fast (-race, a busy machine).
const Liveness = 3 * time.Second

// CancelSoon returns a context cancelled after d and a function telling how
// long ago the cancel happened.
func CancelSoon(t *testing.T, d time.Duration) (context.Context, func() time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var at atomic.Int64
	timer := time.AfterFunc(d, func() {
		at.Store(time.Now().UnixNano())
		cancel()
	})
	t.Cleanup(func() { timer.Stop() })
	return ctx, func() time.Duration {
		require.NotZero(t, at.Load(), "returned before the cancel")
		return time.Since(time.Unix(0, at.Load()))
	}
}

// CancelAfterRuns returns a context and a Progress callback that cancels
// it once n runs are done: a stop at an exact point of a comparison.
func CancelAfterRuns(t *testing.T, n int) (context.Context, func(done, total int)) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, func(done, _ int) {
		if done == n {
			cancel()
		}
	}
}
