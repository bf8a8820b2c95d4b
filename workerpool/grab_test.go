package workerpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

// grabSizes is the sequence of grabs that drain q jobs with the given
// number of workers when nothing is enqueued meanwhile (a gated round).
func grabSizes(q, workers int) []int {
	var sizes []int
	for q > 0 {
		k := grabSize(q, workers)
		sizes = append(sizes, k)
		q -= k
	}
	return sizes
}

func TestGrabSizeSpreadsAGatedRound(t *testing.T) {
	sizes := grabSizes(65, 8)
	assert.Equal(t, []int{4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2}, sizes[:14])
	assert.Len(t, sizes, 44, "the last 30 jobs go one by one")
	assert.Equal(t, 7, sizes[0]+sizes[1], "the first two grabs leave 58 of 65 jobs to the others")
	assert.Equal(t, MaxGrab, grabSize(1_000_000, 2))
	assert.Equal(t, 1, grabSize(3, 2))
	assert.Equal(t, 1, grabSize(1, 1))
	assert.Equal(t, 2, grabSize(4, 1))
}

// The grabs of a gated round are a function of the queue alone, so their
// count is exact whatever the interleaving: 44 for 65 jobs on 8 workers,
// where taking one job per lock acquisition made 65.
func TestGatedRoundGrabsAreExact(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 8, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var j countJob
		batch := make([]jobs.Job, 65)
		for i := range batch {
			batch[i] = &j
		}
		for range 3 {
			before := p.Stats()
			require.NoError(t, p.EnqueueBatch(batch))
			p.Start()
			require.NoError(t, p.Join(timeoutCtx(t)))
			d := p.Stats().Sub(before)
			assert.EqualValues(t, 65, d.TotalJobsRun())
			assert.EqualValues(t, 44, d.Grabs)
		}
	})
}

// One worker takes and runs jobs in the order they were enqueued, across
// grabs of every size.
func TestOneWorkerRunsInFIFOOrder(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 1, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var order []int
		batch := make([]jobs.Job, 0, 300)
		for i := range 300 {
			batch = append(batch, jobs.Func(func(int) { order = append(order, i) }))
		}
		require.NoError(t, p.EnqueueBatch(batch[:200]))
		for _, j := range batch[200:] {
			require.NoError(t, p.Enqueue(j))
		}
		p.Start()
		require.NoError(t, p.Join(timeoutCtx(t)))
		require.Len(t, order, 300)
		for i, v := range order {
			require.Equal(t, i, v)
		}
		assert.Less(t, p.Stats().Grabs, uint64(300), "grabs of more than one job")
	})
}

// A job that panics or ends its goroutine in the middle of a grab does not
// stop the rest of the grab: every other job runs exactly once.
func TestPanicAndGoexitInsideAGrab(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 1, Backend: c.b, Wake: c.w, Queue: c.q, Gated: true})
		var j countJob
		batch := make([]jobs.Job, 16)
		for i := range batch {
			batch[i] = &j
		}
		batch[2] = jobs.Func(func(int) { runtimeGoexit() })
		batch[5] = jobs.Func(func(int) { panic("in a grab") })
		require.NoError(t, p.EnqueueBatch(batch))
		assert.Equal(t, 8, grabSize(16, 1), "the first grab holds both")
		p.Start()
		err := p.Join(timeoutCtx(t))
		assert.ErrorIs(t, err, ErrJobGoexit)
		assert.ErrorContains(t, err, "in a grab")
		assert.EqualValues(t, 14, j.runs.Load())
		assert.EqualValues(t, 16, p.Stats().TotalJobsRun())
		require.NoError(t, p.Close())
	})
}
