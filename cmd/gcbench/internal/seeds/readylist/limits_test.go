package readylist

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// TestReadyListCountsAreBounded: 2^63−1 events per producer (8 producers
// × events overflows) and 3×10^10 (hours of work at every producer count)
// are refused at once; counts at the bounds are accepted.
func TestReadyListCountsAreBounded(t *testing.T) {
	start := time.Now()
	for _, r := range []Run{
		{Kind: MPSC, Producers: 8, Events: math.MaxInt},
		{Kind: MPSC, Producers: 8, Events: MaxTotalEvents/8 + 1},
		{Kind: MPSC, Producers: MaxProducers + 1, Events: 1},
		{Kind: MPSC, Producers: 1, Events: MaxEvents + 1},
	} {
		_, err := Measure(context.Background(), r)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", r)
	}
	for _, o := range []Options{
		{Events: math.MaxInt},
		{Events: 30_000_000_000},
		{Events: 1 << 30, Repetitions: MaxRepetitions},
		{Repetitions: MaxRepetitions + 1},
		{Producers: []int{MaxProducers + 1}},
		{Producers: []int{MaxProducers, MaxProducers}, Events: MaxEvents},
	} {
		rep, err := Compare(context.Background(), o)
		assert.Nil(t, rep)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", o)
	}
	assert.Less(t, time.Since(start), time.Second, "refused without running")

	require.NoError(t, Run{Kind: Mutex, Producers: 8, Events: MaxTotalEvents / 8}.validate())
	require.NoError(t, Run{Kind: MPSC, Producers: MaxProducers, Events: 1}.validate())
	_, err := Options{Producers: []int{1}, Events: MaxTotalEvents / 4, Repetitions: 1}.withDefaults()
	require.NoError(t, err, "1 repetition × 2 variants × 2 kinds × 1 producer × total/4 events")
	_, err = Options{Producers: []int{1}, Events: MaxTotalEvents/4 + 1, Repetitions: 1}.withDefaults()
	require.ErrorIs(t, err, seeds.ErrInvalidOptions)
}
