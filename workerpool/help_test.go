package workerpool

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWaitInsideAJobHelps: on a 1-worker pool a job starts a group of 100
// jobs, each of which runs a Map of 10 items, and waits for the group. The
// waits run the queued jobs on the one worker, so it finishes (issue 41:
// it deadlocked, as errgroup's md5 pipeline did).
func TestWaitInsideAJobHelps(t *testing.T) {
	for _, b := range allBackends {
		for _, q := range allQueues {
			t.Run(b.String()+"/"+q.String(), func(t *testing.T) {
				p := newPool(t, Options{Workers: 1, Backend: b, Queue: q})
				var sum atomic.Int64
				outer := p.NewGroup(timeoutCtx(t))
				outer.Go(func(ctx context.Context, _ int) error {
					g := p.NewGroup(ctx)
					for i := range 100 {
						g.Go(func(ctx context.Context, _ int) error {
							items := make([]int, 10)
							for k := range items {
								items[k] = i*10 + k
							}
							out, err := Map(ctx, p, items, func(_ context.Context, _ int, x int) (int, error) { return x, nil })
							for _, x := range out {
								sum.Add(int64(x))
							}
							return err
						})
					}
					return g.Wait()
				})
				require.NoError(t, outer.WaitCtx(timeoutCtx(t)))
				assert.EqualValues(t, 999*1000/2, sum.Load())
				require.NoError(t, p.Join(timeoutCtx(t)))
				assert.EqualValues(t, 1+100+1000, p.Stats().TotalJobsRun())
			})
		}
	}
}

// TestPlainJobWaitingOnAGroupHelps: a job enqueued without a group (no
// context to go by) that runs a Map on its own 1-worker pool finishes too.
func TestPlainJobWaitingOnAGroupHelps(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var got []int
	var err error
	require.NoError(t, p.EnqueueFunc(func(int) {
		got, err = Map(context.Background(), p, []int{1, 2, 3}, func(_ context.Context, _ int, x int) (int, error) { return 2 * x, nil })
	}))
	require.NoError(t, p.Join(timeoutCtx(t)))
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4, 6}, got)
}

// TestHelpedJobsKeepTheirPanicsAndCounts: a plain job that panics while
// run by a helping wait is reported to Join; a bounded pool gets its
// places back.
func TestHelpedJobsKeepTheirPanicsAndCounts(t *testing.T) {
	p := newPool(t, Options{Workers: 1, MaxQueued: 4})
	require.NoError(t, p.EnqueueFunc(func(int) {
		_ = p.EnqueueFunc(func(int) { panic("helped") })
		_, _ = Map(context.Background(), p, []int{1}, func(context.Context, int, int) (int, error) { return 0, nil })
	}))
	err := p.Join(timeoutCtx(t))
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "helped", pe.Value)
	assert.Zero(t, p.room.used.Load())
	assert.EqualValues(t, 3, p.Stats().TotalJobsRun())
}

// TestTryGo: TryGo queues while the group's limit has room, refuses at
// the limit without waiting, and refuses when the pool is full.
func TestTryGo(t *testing.T) {
	p := newPool(t, Options{Workers: 1, MaxQueued: 1})
	release := make(chan struct{})
	g := p.NewGroup(context.Background(), GroupLimit(2))
	block := func(context.Context, int) error { <-release; return nil }
	assert.True(t, g.TryGo(block))
	assert.True(t, g.TryGo(block))
	assert.False(t, g.TryGo(block), "the limit is reached")
	other := p.NewGroup(context.Background())
	assert.False(t, other.TryGo(block), "the pool is full: 1 running, 1 waiting")
	close(release)
	require.NoError(t, g.Wait())
	require.NoError(t, other.Wait(), "a job TryGo did not queue is not an error")

	closed, err := New(Options{Workers: 1})
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	cg := closed.NewGroup(context.Background())
	assert.False(t, cg.TryGo(block))
	assert.ErrorIs(t, cg.Wait(), ErrClosed)
}
