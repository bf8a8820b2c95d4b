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
			assert.ErrorIs(t, p.TryEnqueue(&j), ErrNotInitialized, name)
			assert.ErrorIs(t, p.EnqueueCtx(context.Background(), &j), ErrNotInitialized, name)
			assert.ErrorIs(t, p.EnqueueBatchCtx(context.Background(), []jobs.Job{&j}), ErrNotInitialized, name)
			assert.Equal(t, Options{}, p.Options(), name)
			g := p.NewGroup(context.Background())
			g.Go(func(context.Context, int) error { return nil })
			assert.ErrorIs(t, g.Wait(), ErrNotInitialized, name)
			_, err := Map(context.Background(), p, []int{1}, func(context.Context, int, int) (int, error) { return 0, nil })
			assert.ErrorIs(t, err, ErrNotInitialized, name)
			assert.ErrorIs(t, p.Shutdown(context.Background()), ErrNotInitialized, name)
			assert.ErrorIs(t, p.Close(), ErrNotInitialized, name)
			assert.ErrorIs(t, p.Close(), ErrNotInitialized, name, "and again")
		}, name)
	}
	assert.Zero(t, j.runs.Load())
}
