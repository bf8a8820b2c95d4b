package protocols

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/workerpool"
)

func TestMulBounded(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		xs    []int
		want  uint64
		ok    bool
	}{
		{100, nil, 1, true},
		{100, []int{10, 10}, 100, true},
		{100, []int{10, 11}, 0, false},
		{math.MaxUint64, []int{1 << 32, 1 << 32}, 0, false}, // 2^64 wraps to 0 unchecked
		{math.MaxUint64, []int{math.MaxInt, 2}, math.MaxUint64 - 1, true},
		{math.MaxUint64, []int{math.MaxInt, 3}, 0, false},
		{1 << 42, []int{0, math.MaxInt}, 0, true},
	} {
		got, ok := mulBounded(tc.limit, tc.xs...)
		assert.Equal(t, tc.ok, ok, "%v", tc.xs)
		assert.Equal(t, tc.want, got, "%v", tc.xs)
	}
}

// TestReadyListCountsAreBounded: 2^63−1 events per producer (8 producers
// × events overflows) and 3×10^10 (hours of work at every producer count)
// are refused at once; counts at the bounds are accepted.
func TestReadyListCountsAreBounded(t *testing.T) {
	start := time.Now()
	for _, r := range []ReadyListRun{
		{Kind: MPSC, Producers: 8, Events: math.MaxInt},
		{Kind: MPSC, Producers: 8, Events: MaxReadyListTotalEvents/8 + 1},
		{Kind: MPSC, Producers: MaxReadyListProducers + 1, Events: 1},
		{Kind: MPSC, Producers: 1, Events: MaxReadyListEvents + 1},
	} {
		_, err := RunReadyList(context.Background(), r)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", r)
	}
	for _, o := range []ReadyListOptions{
		{Events: math.MaxInt},
		{Events: 30_000_000_000},
		{Events: 1 << 30, Repetitions: MaxReadyListRepetitions},
		{Repetitions: MaxReadyListRepetitions + 1},
		{Producers: []int{MaxReadyListProducers + 1}},
		{Producers: []int{MaxReadyListProducers, MaxReadyListProducers}, Events: MaxReadyListEvents},
	} {
		rep, err := CompareReadyList(context.Background(), o)
		assert.Nil(t, rep)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", o)
	}
	assert.Less(t, time.Since(start), time.Second, "refused without running")

	require.NoError(t, ReadyListRun{Kind: Mutex, Producers: 8, Events: MaxReadyListTotalEvents / 8}.validate())
	require.NoError(t, ReadyListRun{Kind: MPSC, Producers: MaxReadyListProducers, Events: 1}.validate())
	_, err := ReadyListOptions{Producers: []int{1}, Events: MaxReadyListTotalEvents / 4, Repetitions: 1}.withDefaults()
	require.NoError(t, err, "1 repetition × 2 variants × 2 kinds × 1 producer × total/4 events")
	_, err = ReadyListOptions{Producers: []int{1}, Events: MaxReadyListTotalEvents/4 + 1, Repetitions: 1}.withDefaults()
	require.ErrorIs(t, err, ErrInvalidOptions)
}

func TestPoolCountsAreBounded(t *testing.T) {
	base := PoolRun{Contender: PoolContender{Baseline: true}, Protocol: Throughput, Items: 1, Workers: 1}
	for _, mut := range []func(*PoolRun){
		func(r *PoolRun) { r.Items = MaxPoolItems + 1 },
		func(r *PoolRun) { r.Protocol, r.Items = Latency, MaxPoolRoundTrips+1 },
		func(r *PoolRun) { r.Workers = workerpool.MaxWorkers + 1 },
		func(r *PoolRun) { r.Protocol = PoolProtocol(7) },
	} {
		r := base
		mut(&r)
		_, err := RunPool(context.Background(), r)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", r)
	}
	require.NoError(t, PoolRun{Protocol: Latency, Items: MaxPoolItems + 1, Workers: 1}.validate(), "round trips have their own bound")

	for _, o := range []PoolOptions{
		{Items: MaxPoolItems + 1},
		{RoundTrips: MaxPoolRoundTrips + 1},
		{Repetitions: MaxPoolRepetitions + 1},
		{BatchSize: MaxPoolItems + 1},
		{Items: MaxPoolItems, Repetitions: 1 << 10},   // 17 contenders × 2^35 items
		{RoundTrips: 1 << 28, Repetitions: 1 << 10},   // 17 contenders × 2^38 round trips
		{Items: math.MaxInt, RoundTrips: math.MaxInt}, // would overflow unchecked
		{Protocols: []PoolProtocol{Latency}, RoundTrips: MaxPoolRoundTrips, Repetitions: MaxPoolRepetitions},
	} {
		rep, err := ComparePool(context.Background(), o)
		assert.Nil(t, rep)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", o)
	}
	_, err := PoolOptions{Protocols: []PoolProtocol{Throughput}, Items: MaxPoolItems, RoundTrips: MaxPoolRoundTrips,
		Repetitions: 1, Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Spin}}.withDefaults()
	require.NoError(t, err, "only the protocols that run count")
}
