package workerpool

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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

// TestPropertyNestedWaitsRunEveryJobOnce: jobs that start groups (or
// Maps) and wait for them, nested to a random depth on a pool of 1–3
// workers of either layout: every Wait returns nil and every leaf runs
// exactly once, and the pool's counters say so.
func TestPropertyNestedWaitsRunEveryJobOnce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p, err := New(Options{
			Workers: rapid.IntRange(1, 3).Draw(rt, "workers"),
			Queue:   rapid.SampledFrom(allQueues).Draw(rt, "queue"),
		})
		if err != nil {
			rt.Fatalf("New: %v", err)
		}
		defer p.Close()
		depth := rapid.IntRange(1, 3).Draw(rt, "depth")
		fan := rapid.IntRange(1, 4).Draw(rt, "fan")
		useMap := rapid.Bool().Draw(rt, "map")
		leaves := 1
		for range depth {
			leaves *= fan
		}
		runs := make([]atomic.Int32, leaves)
		var node func(ctx context.Context, level, index int) error
		node = func(ctx context.Context, level, index int) error {
			if level == depth {
				runs[index].Add(1)
				return nil
			}
			if useMap {
				_, err := Map(ctx, p, make([]int, fan), func(ctx context.Context, _ int, _ int) (int, error) { return 0, nil })
				if err != nil {
					return err
				}
			}
			g := p.NewGroup(ctx)
			for k := range fan {
				g.Go(func(ctx context.Context, _ int) error { return node(ctx, level+1, index*fan+k) })
			}
			return g.Wait()
		}
		root := p.NewGroup(context.Background())
		root.Go(func(ctx context.Context, _ int) error { return node(ctx, 0, 0) })
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := root.WaitCtx(ctx); err != nil {
			rt.Fatalf("Wait: %v", err)
		}
		for i := range runs {
			if n := runs[i].Load(); n != 1 {
				rt.Fatalf("leaf %d ran %d times", i, n)
			}
		}
		if err := p.Join(ctx); err != nil {
			rt.Fatalf("Join: %v", err)
		}
		if st := p.Stats(); st.Submitted != st.Completed || st.Dropped != 0 {
			rt.Fatalf("submitted %d, completed %d, dropped %d", st.Submitted, st.Completed, st.Dropped)
		}
	})
}
