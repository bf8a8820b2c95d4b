package seedbench

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunReadyListCountsEveryEvent(t *testing.T) {
	for _, kind := range []ListKind{MPSC, Mutex} {
		for _, producers := range []int{1, 3, 16} {
			s, err := RunReadyList(context.Background(), ReadyListRun{Kind: kind, Producers: producers, Events: 5000})
			require.NoError(t, err)
			assert.Equal(t, kind, s.Kind)
			assert.Equal(t, producers, s.Producers)
			assert.Equal(t, int64(producers*5000), s.Events, "%v/%d: the consumer sums every event exactly once", kind, producers)
			assert.GreaterOrEqual(t, s.Pops, int64(producers), "every producer pushes at least once")
			assert.LessOrEqual(t, s.Pops, s.Events)
			assert.Positive(t, s.Elapsed)
			assert.InDelta(t, float64(s.Events)/(s.Elapsed.Seconds()*1000), s.EventsPerMs(), 1e-6*s.EventsPerMs())
		}
	}
}

func TestRunReadyListRejectsBadRuns(t *testing.T) {
	for _, r := range []ReadyListRun{
		{Kind: MPSC, Producers: 0, Events: 1},
		{Kind: Mutex, Producers: 1, Events: 0},
		{Kind: ListKind(9), Producers: 1, Events: 1},
	} {
		_, err := RunReadyList(context.Background(), r)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", r)
	}
}

func TestRunReadyListStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunReadyList(ctx, ReadyListRun{Kind: MPSC, Producers: 4, Events: 200_000})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = CompareReadyList(ctx, ReadyListOptions{Events: 10})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCompareReadyListInterleavesAndSummarizes(t *testing.T) {
	var progress []int
	rep, err := CompareReadyList(context.Background(), ReadyListOptions{
		Producers: []int{2, 5}, Events: 2000, Repetitions: 3,
		Progress: func(done, total int) {
			assert.Equal(t, 12, total)
			progress = append(progress, done)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, progress)
	assert.Equal(t, 2000, rep.Events)
	assert.Equal(t, 3, rep.Repetitions)
	require.Len(t, rep.Rows, 2)
	for i, p := range []int{2, 5} {
		row := rep.Rows[i]
		assert.Equal(t, p, row.Producers)
		for _, st := range []ReadyListStats{row.MPSC, row.Mutex} {
			require.Len(t, st.Samples, 3)
			assert.Contains(t, st.Samples, st.EventsPerMs, "the median is an observed run")
			assert.Positive(t, st.RunTimeMs)
			assert.Positive(t, st.PushesPerMs)
		}
		assert.InDelta(t, row.MPSC.EventsPerMs/row.Mutex.EventsPerMs, row.Ratio, 1e-9)
	}
}

func TestCompareReadyListDefaultsAndValidation(t *testing.T) {
	o, err := ReadyListOptions{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, []int{8, 16, 32}, o.Producers)
	assert.Equal(t, 1_000_000, o.Events)
	assert.Equal(t, 5, o.Repetitions)
	for _, bad := range []ReadyListOptions{
		{Producers: []int{8, 0}},
		{Events: -1},
		{Repetitions: -2},
	} {
		_, err := CompareReadyList(context.Background(), bad)
		assert.ErrorIs(t, err, ErrInvalidOptions, "%+v", bad)
	}
}

func TestListKindNames(t *testing.T) {
	for _, k := range []ListKind{MPSC, Mutex} {
		got, err := ParseListKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	_, err := ParseListKind("spin")
	assert.ErrorIs(t, err, ErrInvalidOptions)
	assert.Equal(t, "ListKind(4)", ListKind(4).String())
}

func TestMedianIsAnObservedValue(t *testing.T) {
	assert.Equal(t, 3.0, Median([]float64{5, 3, 1}))
	assert.Equal(t, 2.0, Median([]float64{4, 1, 2, 3}), "lower middle for an even count")
	assert.True(t, math.IsNaN(Median(nil)))
	xs := []float64{3, 1, 2}
	Median(xs)
	assert.Equal(t, []float64{3, 1, 2}, xs, "the input is not reordered")
}
