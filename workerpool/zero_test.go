package workerpool

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/jobs"
)

// TestZeroAndNilPoolsDoNotPanic: every method of a Pool that New did not
// make either works on an empty pool or returns ErrNotInitialized.
func TestZeroAndNilPoolsDoNotPanic(t *testing.T) {
	var j countJob
	for name, p := range map[string]*Pool{"zero": {}, "nil": nil} {
		assert.NotPanics(t, func() {
			assert.ErrorIs(t, p.Enqueue(&j), ErrNotInitialized, name)
			assert.ErrorIs(t, p.Enqueue(nil), ErrNotInitialized, name)
			assert.ErrorIs(t, p.EnqueueFunc(j.Run), ErrNotInitialized, name)
			assert.ErrorIs(t, p.EnqueueBatch([]jobs.Job{&j}), ErrNotInitialized, name)
			assert.ErrorIs(t, p.EnqueueBatch(nil), ErrNotInitialized, name)
			assert.ErrorIs(t, p.StartBatch([]jobs.Job{&j}), ErrNotInitialized, name)
			assert.ErrorIs(t, p.StartBatch(nil), ErrNotInitialized, name)
			p.Start()
			assert.ErrorIs(t, p.Join(context.Background()), ErrNotInitialized, name)
			assert.Zero(t, p.Discard(), name)
			assert.Zero(t, p.Workers(), name)
			s := p.Stats()
			assert.Zero(t, s.TotalJobsRun(), name)
			assert.Equal(t, Stats{JobsRun: []uint64{}}, s, name)
			assert.ErrorIs(t, p.Close(), ErrNotInitialized, name)
			assert.ErrorIs(t, p.Close(), ErrNotInitialized, name, "and again")
		}, name)
	}
	assert.Zero(t, j.runs.Load())
}
