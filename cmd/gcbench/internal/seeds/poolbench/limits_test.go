package poolbench

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/workerpool"
)

func TestPoolCountsAreBounded(t *testing.T) {
	base := Run{Contender: Contender{Baseline: true}, Protocol: Throughput, Items: 1, Workers: 1}
	for _, mut := range []func(*Run){
		func(r *Run) { r.Items = MaxItems + 1 },
		func(r *Run) { r.Protocol, r.Items = Latency, MaxRoundTrips+1 },
		func(r *Run) { r.Workers = workerpool.MaxWorkers + 1 },
		func(r *Run) { r.Protocol = Protocol(7) },
	} {
		r := base
		mut(&r)
		_, err := Measure(context.Background(), r)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", r)
	}
	require.NoError(t, Run{Protocol: Latency, Items: MaxItems + 1, Workers: 1}.validate(), "round trips have their own bound")

	for _, o := range []Options{
		{Items: MaxItems + 1},
		{RoundTrips: MaxRoundTrips + 1},
		{Repetitions: MaxRepetitions + 1},
		{BatchSize: MaxItems + 1},
		{Items: MaxItems, Repetitions: 1 << 10},       // 17 contenders × 2^35 items
		{RoundTrips: 1 << 28, Repetitions: 1 << 10},   // 17 contenders × 2^38 round trips
		{Items: math.MaxInt, RoundTrips: math.MaxInt}, // would overflow unchecked
		{Protocols: []Protocol{Latency}, RoundTrips: MaxRoundTrips, Repetitions: MaxRepetitions},
	} {
		rep, err := Compare(context.Background(), o)
		assert.Nil(t, rep)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", o)
	}
	_, err := Options{Protocols: []Protocol{Throughput}, Items: MaxItems, RoundTrips: MaxRoundTrips,
		Repetitions: 1, Backends: []workerpool.Backend{workerpool.Goroutines}, Wakes: []workerpool.WakePolicy{workerpool.Spin}}.withDefaults()
	require.NoError(t, err, "only the protocols that run count")
}
