package readylist

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/canceltest"
)

// TestMeasureStopsSoonAfterCancel: producers of 2^40 events each would
// run for hours; a cancel stops producers and consumer within the bound.
func TestMeasureStopsSoonAfterCancel(t *testing.T) {
	for _, variant := range []Variant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			ctx, since := canceltest.CancelSoon(t, 50*time.Millisecond)
			_, err := Measure(ctx, Run{Kind: kind, Variant: variant, Producers: 4, Events: 1 << 40})
			require.ErrorIs(t, err, context.Canceled, "%v/%v", variant, kind)
			assert.Less(t, since(), canceltest.Liveness, "%v/%v", variant, kind)
		}
	}
}

// TestCompareCancelledKeepsCompleteRepetitions: a comparison of
// many short runs stopped part-way reports the repetitions completed, each
// row with that many samples; one stopped in its first repetition reports
// nothing.
func TestCompareCancelledKeepsCompleteRepetitions(t *testing.T) {
	ctx, since := canceltest.CancelSoon(t, 300*time.Millisecond)
	rep, err := Compare(ctx, Options{Producers: []int{2}, Events: 500, Repetitions: MaxRepetitions})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), canceltest.Liveness)
	require.NotNil(t, rep, "some repetitions complete in 300ms")
	assert.True(t, rep.Partial)
	assert.Positive(t, rep.Repetitions)
	assert.Less(t, rep.Repetitions, MaxRepetitions)
	require.Len(t, rep.Rows, 2)
	for _, row := range rep.Rows {
		assert.Len(t, row.MPSC.Samples, rep.Repetitions)
		assert.Len(t, row.Mutex.Samples, rep.Repetitions)
	}

	ctx, since = canceltest.CancelSoon(t, 50*time.Millisecond)
	rep, err = Compare(ctx, Options{Producers: []int{2}, Events: 1 << 40, Repetitions: 1, Variants: []Variant{Callback}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, since(), canceltest.Liveness)
	assert.Nil(t, rep)
}

// TestCompareStoppedInTheFirstRepetitionKeepsFinishedRows: a stop
// after three of the first repetition's four runs keeps the row whose two
// runs finished and leaves out the one with a run missing.
func TestCompareStoppedInTheFirstRepetitionKeepsFinishedRows(t *testing.T) {
	ctx, progress := canceltest.CancelAfterRuns(t, 3)
	rep, err := Compare(ctx, Options{Producers: []int{2}, Events: 500, Repetitions: 3,
		Variants: []Variant{Transition, Callback}, Progress: progress})
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.True(t, rep.Partial)
	assert.Equal(t, 1, rep.Repetitions)
	require.Len(t, rep.Rows, 1)
	row := rep.Rows[0]
	assert.Equal(t, Transition.String(), row.Variant)
	assert.Len(t, row.MPSC.Samples, 1)
	assert.Len(t, row.Mutex.Samples, 1)
	assert.Positive(t, row.Ratio)
}
