package poolbench

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/workerpool"
)

func TestMeasureEveryContenderAndProtocol(t *testing.T) {
	cs := Options{}.Contenders()
	require.Len(t, cs, 17, "the baseline + 2 backends × 4 wake policies × {Enqueue, EnqueueBatch}")
	for _, c := range cs {
		for _, proto := range []Protocol{Throughput, Latency} {
			for _, batchSize := range []int{0, 7} {
				// Measure itself fails unless every item ran exactly once.
				d, err := Measure(context.Background(), Run{Contender: c, Protocol: proto, Items: 300, Workers: 3, BatchSize: batchSize})
				require.NoError(t, err, "%v %v", c, proto)
				assert.Positive(t, d)
			}
		}
	}
}

func TestMeasureRejectsBadRuns(t *testing.T) {
	base := Run{Contender: Contender{Baseline: true}, Items: 1, Workers: 1}
	for _, mut := range []func(*Run){
		func(r *Run) { r.Items = 0 },
		func(r *Run) { r.Workers = 0 },
		func(r *Run) { r.BatchSize = -1 },
	} {
		r := base
		mut(&r)
		_, err := Measure(context.Background(), r)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", r)
	}
	_, err := Measure(context.Background(), Run{Contender: Contender{Wake: workerpool.WakePolicy(42)}, Items: 1, Workers: 1})
	assert.Error(t, err, "the pool's own validation error is passed on")
}

func TestMeasureStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []Contender{{Baseline: true}, {Wake: workerpool.Targeted}} {
		_, err := Measure(ctx, Run{Contender: c, Protocol: Latency, Items: 1000, Workers: 2})
		assert.ErrorIs(t, err, context.Canceled, "%v", c)
	}
	_, err := Compare(ctx, Options{Items: 10, RoundTrips: 10})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCompareTable(t *testing.T) {
	calls := 0
	rep, err := Compare(context.Background(), Options{
		Items: 500, RoundTrips: 40, Repetitions: 2, Workers: 2, BatchSize: 64,
		Backends: []workerpool.Backend{workerpool.Goroutines},
		Wakes:    []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Targeted},
		Progress: func(done, total int) {
			calls++
			assert.Equal(t, calls, done)
			assert.Equal(t, 2*2*5, total)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, 20, calls)
	assert.Equal(t, Report{Workers: 2, GOMAXPROCS: runtime.GOMAXPROCS(0), Items: 500, RoundTrips: 40, BatchSize: 64, Repetitions: 2, Rows: rep.Rows}, *rep)
	var names []string
	for _, row := range rep.Rows {
		names = append(names, row.Contender)
		for _, st := range []*Stats{row.Throughput, row.Latency} {
			require.NotNil(t, st)
			require.Len(t, st.Samples, 2)
			assert.Equal(t, stats.Summarize(st.Samples).Median, st.Seconds, "stats' median of the runs")
		}
		assert.InDelta(t, row.Throughput.Seconds*1e9/500, row.Throughput.PerItemNs, 1e-6)
		assert.InDelta(t, row.Latency.Seconds*1e9/40, row.Latency.PerItemNs, 1e-6)
		assert.InDelta(t, rep.Rows[0].Latency.Seconds/row.Latency.Seconds, row.Latency.Speedup, 1e-9)
		assert.InDelta(t, (row.Latency.Samples[0]+row.Latency.Samples[1])/2, row.Latency.Seconds, 1e-15,
			"the median of two runs is their mean (QUARTILE.INC)")
	}
	assert.Equal(t, []string{"goroutine-per-item",
		"goroutines/broadcast/enqueue", "goroutines/broadcast/batch",
		"goroutines/targeted/enqueue", "goroutines/targeted/batch"}, names)
	assert.Equal(t, 1.0, rep.Rows[0].Throughput.Speedup)
	assert.Equal(t, "go", rep.Rows[0].API)
	assert.Empty(t, rep.Rows[0].Backend)
	assert.Equal(t, "batch", rep.Rows[2].API)

	best := rep.Best(Throughput, "batch")
	require.NotNil(t, best)
	assert.Equal(t, "batch", best.API)
	for _, row := range rep.Rows {
		if row.API == "batch" {
			assert.GreaterOrEqual(t, best.Throughput.Speedup, row.Throughput.Speedup)
		}
	}
	assert.Nil(t, rep.Best(Latency, "nonesuch"))
}

func TestCompareOneProtocol(t *testing.T) {
	rep, err := Compare(context.Background(), Options{
		Protocols: []Protocol{Latency}, RoundTrips: 20, Repetitions: 1, BatchSize: -1,
		Backends: []workerpool.Backend{workerpool.Threads}, Wakes: []workerpool.WakePolicy{workerpool.Spin},
	})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.BatchSize, "-1 means all at once, reported as 0")
	require.Len(t, rep.Rows, 3)
	for _, row := range rep.Rows {
		assert.Nil(t, row.Throughput)
		assert.NotNil(t, row.Latency)
	}
	assert.Equal(t, "threads/spin/enqueue", rep.Rows[1].Contender)
}

func TestCompareValidation(t *testing.T) {
	for _, bad := range []Options{
		{Items: -1},
		{RoundTrips: -5},
		{Repetitions: -1},
		{Workers: -1},
		{Workers: workerpool.MaxWorkers + 1},
		{BatchSize: -2},
		{Protocols: []Protocol{7}},
	} {
		_, err := Compare(context.Background(), bad)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", bad)
	}
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, 10_000_000, o.Items)
	assert.Equal(t, 300_000, o.RoundTrips)
	assert.Equal(t, 1024, o.BatchSize)
	assert.Equal(t, []Protocol{Throughput, Latency}, o.Protocols)
}

func TestProtocolNames(t *testing.T) {
	parsetest.Names(t, ParseProtocol, ProtocolNames(), Throughput, Latency)
	_, err := ParseProtocol("bandwidth")
	assert.ErrorIs(t, err, seeds.ErrInvalidOptions)
	assert.Equal(t, "Protocol(3)", Protocol(3).String())
}

func TestContendersLeaveOutWhatABackendDoesNotHave(t *testing.T) {
	cs := Options{
		Backends: []workerpool.Backend{workerpool.Goroutines, workerpool.Native},
		Wakes:    []workerpool.WakePolicy{workerpool.Signal, workerpool.Spin},
	}.Contenders()
	var names []string
	for _, c := range cs {
		names = append(names, c.String())
	}
	assert.Equal(t, []string{BaselineName,
		"goroutines/signal/enqueue", "goroutines/signal/batch",
		"goroutines/spin/enqueue", "goroutines/spin/batch",
		"native/signal/enqueue", "native/signal/batch",
	}, names, "Native × Spin is left out, as workerpool.Options.Validate refuses it")
}
