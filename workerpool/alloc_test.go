package workerpool

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

var funcRuns atomic.Int64

func countRun(int) { funcRuns.Add(1) }

// pointerOnly is pointer-shaped: an interface holds it without a copy.
type pointerOnly struct{ n *atomic.Int64 }

func (j pointerOnly) Run(int) { j.n.Add(1) }

// twoWords is not: converting it to jobs.Job copies it to the heap.
type twoWords struct {
	n    *atomic.Int64
	step int64
}

func (j twoWords) Run(int) { j.n.Add(j.step) }

// TestSubmitFormsAllocate is Pool.Enqueue's list of which
// submissions allocate, measured: one Enqueue (or EnqueueFunc) and Join
// per run, on a warm pool.
func TestSubmitFormsAllocate(t *testing.T) {
	for _, b := range allBackends {
		p := newPool(t, Options{Workers: 1, Backend: b})
		ctx := context.Background()
		var n atomic.Int64
		var j countJob
		reused := jobs.Func(func(int) { n.Add(1) })
		batch := []jobs.Job{&j, &j, &j}
		i := int64(0)
		forms := []struct {
			name   string
			allocs float64
			submit func() error
		}{
			{"pointer", 0, func() error { return p.Enqueue(&j) }},
			{"pointer-shaped struct", 0, func() error { return p.Enqueue(pointerOnly{&n}) }},
			{"top-level func", 0, func() error { return p.EnqueueFunc(countRun) }},
			{"func built once", 0, func() error { return p.Enqueue(reused) }},
			{"reused batch", 0, func() error { return p.EnqueueBatch(batch) }},
			{"capturing closure", 1, func() error {
				i++
				return p.EnqueueFunc(func(int) { n.Add(i) })
			}},
			{"method value", 1, func() error { return p.EnqueueFunc(j.Run) }},
			{"two-word struct", 1, func() error { return p.Enqueue(twoWords{&n, 2}) }},
		}
		for _, f := range forms {
			got := testing.AllocsPerRun(200, func() {
				require.NoError(t, f.submit())
				require.NoError(t, p.Join(ctx))
			})
			assert.Equal(t, f.allocs, got, "%v: %s", b, f.name)
		}
	}
}

// A gated round with StartBatch, Broadcast's deferred wake included,
// allocates nothing on a warm pool.
func TestStartBatchRoundAllocatesNothing(t *testing.T) {
	for _, b := range allBackends {
		for _, w := range allPolicies {
			p := newPool(t, Options{Workers: 2, Backend: b, Wake: w, Gated: true})
			var j countJob
			batch := []jobs.Job{&j, &j, &j}
			got := testing.AllocsPerRun(200, func() {
				require.NoError(t, p.StartBatch(batch))
				require.NoError(t, p.Join(context.Background()))
			})
			assert.Zero(t, got, "%v/%v", b, w)
		}
	}
}

func TestEnqueueFunc(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	var ran atomic.Int64
	require.NoError(t, p.EnqueueFunc(func(w int) {
		if w >= 0 && w < 2 {
			ran.Add(1)
		}
	}))
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.EqualValues(t, 1, ran.Load())
	assert.ErrorIs(t, p.EnqueueFunc(nil), ErrNilJob)
	require.NoError(t, p.Close())
	assert.ErrorIs(t, p.EnqueueFunc(countRun), ErrClosed)
	var zero *Pool
	assert.ErrorIs(t, zero.EnqueueFunc(countRun), ErrNotInitialized)
	assert.ErrorIs(t, zero.EnqueueFunc(nil), ErrNotInitialized)
}
