package workerpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

// TestDiscardDropsQueuedJobsOnly: on a gated pool every enqueued job is
// still queued; Discard removes them all, Join then has nothing to wait for,
// none of them runs, and the pool keeps working.
func TestDiscardDropsQueuedJobsOnly(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var j countJob
		for range 10 {
			require.NoError(t, p.Enqueue(&j))
		}
		require.NoError(t, p.EnqueueBatch([]jobs.Job{&j, &j, &j, &j, &j}))
		assert.Equal(t, 15, p.Discard())
		assert.Zero(t, p.Discard(), "nothing left")
		p.Start()
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Zero(t, j.runs.Load())
		assert.Zero(t, p.Stats().TotalJobsRun())

		require.NoError(t, p.EnqueueBatch([]jobs.Job{&j, &j}))
		p.Start()
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 2, j.runs.Load())
		assert.EqualValues(t, 2, p.Stats().TotalJobsRun())
	})
}

// TestDiscardLetsCloseReturnWithoutDraining: a million jobs queued behind a
// running one; after Discard, Close waits for the running job alone.
func TestDiscardLetsCloseReturnWithoutDraining(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 1, Backend: c.b, Wake: c.w, Queue: c.q})
		started, release := make(chan struct{}), make(chan struct{})
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { close(started); <-release })))
		<-started
		var j countJob
		batch := make([]jobs.Job, 1<<20)
		for i := range batch {
			batch[i] = &j
		}
		require.NoError(t, p.EnqueueBatch(batch))
		joined := make(chan error, 1)
		go func() { joined <- p.Join(timeoutCtx(t)) }()
		assert.Equal(t, len(batch), p.Discard())
		select {
		case err := <-joined:
			t.Fatalf("Join returned (%v) while a job still runs", err)
		case <-time.After(5 * time.Millisecond):
		}
		close(release)
		require.NoError(t, <-joined)
		require.NoError(t, p.Close())
		assert.Zero(t, j.runs.Load())
		assert.EqualValues(t, 1, p.Stats().TotalJobsRun())
	})
}
