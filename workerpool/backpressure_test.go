package workerpool

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"
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
				assert.EqualValues(t, 4, p.Stats().Waiting)
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				assert.ErrorIs(t, p.EnqueueCtx(ctx, &n), context.Canceled)
				assert.ErrorIs(t, p.EnqueueBatchCtx(context.Background(), make([]jobs.Job, 5)), ErrNilJob, "nil jobs are refused first")
				batch7 := []jobs.Job{&n, &n, &n, &n, &n, &n, &n}
				assert.ErrorIs(t, p.EnqueueBatch(batch7), ErrBatchTooLarge, "a batch that can never fit is refused at once")
				assert.EqualValues(t, 4, p.Stats().Waiting, "nothing of a refused batch was queued")

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
// jobs accepted and unfinished never pass Workers + MaxQueued (checked by
// every job), and every job runs once.
func TestBoundedQueueNeverExceeds(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		const bound = 8
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q, MaxQueued: bound})
		var n countJob
		var over atomic.Int64
		job := jobs.Func(func(int) {
			if q := p.room.used.Load(); q > bound+2 || q < 0 {
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

// TestBoundCountsGrabbedJobs: 1 worker blocked in a job and MaxQueued 8:
// exactly 8 more are accepted — jobs the worker grabbed and has not
// started count — then TryEnqueue returns ErrQueueFull and EnqueueCtx
// waits until its context ends (issue 41: the worker's grab hid them, and
// EnqueueCtx succeeded).
func TestBoundCountsGrabbedJobs(t *testing.T) {
	for _, q := range allQueues {
		t.Run(q.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Queue: q, MaxQueued: 8})
			b := blockWorkers(t, p)
			var n countJob
			for range 8 {
				require.NoError(t, p.TryEnqueue(&n))
			}
			assert.ErrorIs(t, p.TryEnqueue(&n), ErrQueueFull)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			assert.ErrorIs(t, p.EnqueueCtx(ctx, &n), context.DeadlineExceeded)
			assert.ErrorIs(t, p.EnqueueBatchCtx(ctx, []jobs.Job{&n}), context.DeadlineExceeded)
			st := p.Stats()
			assert.EqualValues(t, 8, st.Waiting)
			b.open()
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 8, n.runs.Load())
		})
	}
}

// TestBoundCountsAGrabsUnstartedJobs: the blocked job came in a batch, so
// its worker's grab holds unstarted jobs; they still count, so 1 worker
// and MaxQueued 8 with 8 accepted (the blocker and 7) take exactly 1
// more. Before, the grab's jobs freed their places when taken.
func TestBoundCountsAGrabsUnstartedJobs(t *testing.T) {
	for _, q := range allQueues {
		t.Run(q.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Queue: q, MaxQueued: 8})
			started, release := make(chan struct{}), make(chan struct{})
			var n countJob
			batch := []jobs.Job{jobs.Func(func(int) { close(started); <-release })}
			for range 7 {
				batch = append(batch, &n)
			}
			require.NoError(t, p.EnqueueBatch(batch))
			testwait.Recv(t, started, 20*time.Second, "the blocking job's start")
			require.NoError(t, p.TryEnqueue(&n))
			assert.ErrorIs(t, p.TryEnqueue(&n), ErrQueueFull)
			assert.EqualValues(t, 8, p.Stats().Waiting)
			close(release)
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 8, n.runs.Load())
		})
	}
}

// TestIdleWorkersAreRoom: an idle 8-worker pool with MaxQueued 1 accepts
// 9 jobs at once (issue 41: it accepted 1), then refuses the 10th while
// they run.
func TestIdleWorkersAreRoom(t *testing.T) {
	p := newPool(t, Options{Workers: 8, MaxQueued: 1})
	release := make(chan struct{})
	job := jobs.Func(func(int) { <-release })
	for i := range 9 {
		require.NoError(t, p.TryEnqueue(job), "job %d", i)
	}
	assert.ErrorIs(t, p.TryEnqueue(job), ErrQueueFull)
	close(release)
	require.NoError(t, p.Join(timeoutCtx(t)))
}
