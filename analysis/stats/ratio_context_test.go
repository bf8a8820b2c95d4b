package stats

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doneAfter is a context that ends at its n-th look: a cancel arriving in
// the middle of a bootstrap, deterministically.
type doneAfter struct {
	context.Context
	looks, n int
}

var errStopped = errors.New("stopped")

func (c *doneAfter) Err() error {
	c.looks++
	if c.looks >= c.n {
		return context.Canceled
	}
	return nil
}

// A bootstrap looks at its context every ratioCheckEvery resamples, so a
// cancel in its middle ends it there, not after the remaining resamples.
func TestRatioOfContextStopsInsideTheBootstrap(t *testing.T) {
	base, new := make([]float64, 500), make([]float64, 500)
	for i := range base {
		base[i], new[i] = float64(100+i%37), float64(80+i%29)
	}
	want, err := RatioOf(base, new, TrimMean10)
	require.NoError(t, err)
	got, err := RatioOfContext(context.Background(), base, new, TrimMean10)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a context that never ends changes nothing")

	ctx := &doneAfter{Context: context.Background(), n: 3}
	_, err = RatioOfContext(ctx, base, new, TrimMean10)
	require.ErrorIs(t, err, context.Canceled)
	// It stops at the look that saw the cancel (then context.Cause looks
	// once more), not after the 2000/ratioCheckEvery looks of a whole run.
	assert.LessOrEqual(t, ctx.looks, 4)

	cctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStopped)
	_, err = RatioOfContext(cctx, base, new, Median)
	require.ErrorIs(t, err, errStopped, "the context's cause comes back")
}
