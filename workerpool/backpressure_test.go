package workerpool

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blocker holds every worker of a pool in a job until released, so that
// what is enqueued meanwhile stays queued.
type blocker struct {
	started sync.WaitGroup
	release chan struct{}
}

func blockWorkers(t *testing.T, p *Pool) *blocker {
	b := &blocker{release: make(chan struct{})}
	b.started.Add(p.Workers())
	for range p.Workers() {
		require.NoError(t, p.Enqueue(jobs.Func(func(int) { b.started.Done(); <-b.release })))
	}
	b.started.Wait()
	return b
}

func (b *blocker) open() { close(b.release) }

func TestBoundedQueue(t *testing.T) {
	for _, q := range allQueues {
		for _, w := range allPolicies {
			t.Run(q.String()+"/"+w.String(), func(t *testing.T) {
				p := newPool(t, Options{Workers: 2, Wake: w, Queue: q, MaxQueued: 4})
				b := blockWorkers(t, p)
				var n countJob
				for range 4 {
					require.NoError(t, p.TryEnqueue(&n))
				}
				assert.ErrorIs(t, p.TryEnqueue(&n), ErrQueueFull)
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				assert.ErrorIs(t, p.EnqueueCtx(ctx, &n), context.Canceled)
				assert.ErrorIs(t, p.EnqueueBatchCtx(context.Background(), make([]jobs.Job, 5)), ErrNilJob, "nil jobs are refused first")
				batch5 := []jobs.Job{&n, &n, &n, &n, &n}
				assert.ErrorIs(t, p.EnqueueBatch(batch5), ErrBatchTooLarge, "a batch that can never fit is refused at once")
				assert.EqualValues(t, 4, p.Stats().Queued, "nothing of a refused batch was queued")

				// A batch that fits waits whole for room.
				var waited atomic.Bool
				done := make(chan error, 1)
				go func() {
					err := p.EnqueueBatchCtx(timeoutCtx(t), []jobs.Job{&n, &n, &n})
					waited.Store(true)
					done <- err
				}()
				b.open()
				require.NoError(t, <-done)
				require.NoError(t, p.Join(timeoutCtx(t)))
				assert.EqualValues(t, 7, n.runs.Load())
				assert.True(t, waited.Load())
			})
		}
	}
}

// TestBoundedQueueNeverExceeds: many enqueuers against a small bound; the
// gauge of queued jobs never passes it (checked by every job), and every
// job runs once.
func TestBoundedQueueNeverExceeds(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		const bound = 8
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q, MaxQueued: bound})
		var n countJob
		var over atomic.Int64
		job := jobs.Func(func(int) {
			if q := p.room.used.Load(); q > bound || q < 0 {
				over.Add(1)
			}
			n.Run(0)
		})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for i := range 200 {
					if i%3 == 0 {
						assert.NoError(t, p.EnqueueBatch([]jobs.Job{job, job}))
					} else {
						assert.NoError(t, p.EnqueueCtx(timeoutCtx(t), job))
					}
				}
			})
		}
		wg.Wait()
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Zero(t, over.Load())
		assert.EqualValues(t, 4*(67*2+133), n.runs.Load())
		assert.Zero(t, p.room.used.Load())
	})
}

func TestBoundedQueueRefusedOnNativeAndGated(t *testing.T) {
	_, err := New(Options{Workers: 1, Gated: true, MaxQueued: 3})
	assert.ErrorIs(t, err, ErrInvalidOptions)
	_, err = New(Options{Workers: 1, Backend: Native, MaxQueued: 3})
	assert.ErrorIs(t, err, ErrUnsupported)
}
