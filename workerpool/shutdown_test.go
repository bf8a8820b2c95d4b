package workerpool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestShutdownRunsEverythingWithoutADeadline(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p, err := New(Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		require.NoError(t, err)
		var n countJob
		for range 100 {
			require.NoError(t, p.Enqueue(&n))
		}
		require.NoError(t, p.Shutdown(context.Background()))
		assert.EqualValues(t, 100, n.runs.Load())
		assert.ErrorIs(t, p.Enqueue(&n), ErrClosed)
		assert.NoError(t, p.Close())
	})
}

func TestCloseReportsUncollectedPanics(t *testing.T) {
	p, err := New(Options{Workers: 1})
	require.NoError(t, err)
	require.NoError(t, p.EnqueueFunc(func(int) { panic("lost") }))
	err = p.Close()
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "lost", pe.Value)
	assert.Equal(t, err, p.Close(), "every call returns the first call's result")
}

// TestPropertyShutdown: jobs enqueued by several goroutines, plain and in
// groups, then Shutdown whose context ends after a random number of jobs
// ran. Every accepted job ran exactly once or was dropped, never both;
// Shutdown's count plus the jobs run is what was accepted; every group
// reports its own dropped jobs; nothing is accepted after Shutdown begins.
func TestPropertyShutdown(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		rapid.Check(t, func(rt *rapid.T) {
			workers := rapid.IntRange(1, 4).Draw(rt, "workers")
			p, err := New(Options{Workers: workers, Backend: c.b, Wake: c.w, Queue: c.q})
			if err != nil {
				rt.Fatalf("New: %v", err)
			}
			plain := rapid.IntRange(0, 200).Draw(rt, "plain")
			grouped := rapid.IntRange(0, 100).Draw(rt, "grouped")
			stopAfter := rapid.IntRange(0, plain+grouped).Draw(rt, "stopAfter")
			total := plain + grouped
			runs := make([]atomic.Int32, total)
			var ran atomic.Int64
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hold := make(chan struct{})
			// Every worker waits in a first job until the jobs are queued,
			// so that the deadline can pass with jobs still queued.
			var started sync.WaitGroup
			started.Add(workers)
			for range workers {
				if err := p.EnqueueFunc(func(int) { started.Done(); <-hold }); err != nil {
					rt.Fatalf("Enqueue: %v", err)
				}
			}
			started.Wait()
			mark := func(id int) {
				if runs[id].Add(1) != 1 {
					rt.Errorf("job %d ran twice", id)
				}
				if ran.Add(1) == int64(stopAfter) {
					cancel()
				}
			}
			for i := range plain {
				if err := p.Enqueue(jobs.Func(func(int) { mark(i) })); err != nil {
					rt.Fatalf("Enqueue: %v", err)
				}
			}
			g := p.NewGroup(context.Background())
			fns := make([]func(context.Context, int) error, grouped)
			for i := range fns {
				fns[i] = func(context.Context, int) error { mark(plain + i); return nil }
			}
			g.GoBatch(fns...)
			if stopAfter == 0 {
				cancel()
			}
			close(hold)
			err = p.Shutdown(ctx)
			dropped := 0
			var de *DroppedError
			if errors.As(err, &de) {
				dropped = de.Count
			} else if err != nil && !errors.Is(err, context.Canceled) {
				rt.Fatalf("Shutdown: %v", err)
			}
			if err := p.Close(); err != nil { // the jobs still running when Shutdown returned
				rt.Fatalf("Close: %v", err)
			}
			if int(ran.Load())+dropped != total {
				rt.Fatalf("%d ran + %d dropped != %d accepted", ran.Load(), dropped, total)
			}
			if !errors.Is(p.EnqueueFunc(func(int) {}), ErrClosed) {
				rt.Fatalf("accepted a job after Shutdown")
			}
			gDropped := 0
			for i := plain; i < total; i++ {
				if runs[i].Load() == 0 {
					gDropped++
				}
			}
			gerr := g.Wait()
			if gDropped > 0 {
				if !errors.As(gerr, &de) || de.Count != gDropped {
					rt.Fatalf("group: %d of its jobs dropped, Wait said %v", gDropped, gerr)
				}
			} else if gerr != nil {
				rt.Fatalf("group: nothing dropped, Wait said %v", gerr)
			}
		})
	})
}

// TestShutdownReturnsAtItsDeadline: with a 1 s job running, Shutdown with
// a 100 ms deadline returns within 200 ms (a liveness bound), with an
// error that matches context.DeadlineExceeded and names the running job;
// Close then waits for that job.
func TestShutdownReturnsAtItsDeadline(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	started := make(chan struct{})
	var finished atomic.Bool
	require.NoError(t, p.EnqueueFunc(func(int) { close(started); time.Sleep(time.Second); finished.Store(true) }))
	testwait.Recv(t, started, 20*time.Second, "the 1 s job's start")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	err := p.Shutdown(ctx)
	took := time.Since(begin)
	assert.Less(t, took, 200*time.Millisecond, "Shutdown returned %v after its deadline", took-100*time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "1 still running")
	assert.NotErrorIs(t, err, ErrDropped, "nothing was queued")
	assert.False(t, finished.Load())
	require.NoError(t, p.Close())
	assert.True(t, finished.Load(), "Close waits for the running job")
}
