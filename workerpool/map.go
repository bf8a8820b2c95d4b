package workerpool

import (
	"context"

	"github.com/gcbench/gcbench/jobs"
)

// Map runs fn on every item on p's workers and returns the results in the
// items' order. The items are queued as one batch — one lock acquisition
// and one wake decision (EnqueueBatch) — unless Options.MaxQueued makes
// Map queue them in batches of at most that many, each waiting for room.
// Each call receives a context derived from ctx and the worker's index.
//
// Map stops early on the first error: it cancels the context, drops the
// items not yet started (including those in a worker's grab) and returns
// that error (a job's panic as a *PanicError) and nil results once the
// items already running have returned. If ctx ends first, Map returns a
// *DroppedError wrapping ErrDropped and ctx's cause. Called from a job of
// p, its worker runs p's queued jobs while Map waits (see the package
// doc's "Jobs that wait"); from any other goroutine it only waits. Like a group (Pool.NewGroup), Map needs an ungated
// pool of the Goroutines or Threads backend and otherwise returns an error
// wrapping ErrGated or ErrUnsupported; it allocates the results and, for
// the batch, one job and one slot per item, not one closure per item.
func Map[T, R any](ctx context.Context, p *Pool, items []T, fn func(ctx context.Context, worker int, item T) (R, error)) ([]R, error) {
	g := p.NewGroup(ctx, GroupCancelOnError())
	m := &mapRun[T, R]{fn: fn, items: items, out: make([]R, len(items))}
	if g.setup == nil && len(items) > 0 {
		tasks := make([]mapTask[T, R], len(items))
		js := make([]jobs.Job, len(items))
		for i := range tasks {
			tasks[i] = mapTask[T, R]{m: m, g: g, i: i}
			js[i] = &tasks[i]
		}
		g.submit(js)
	} else if g.setup != nil {
		g.fail(g.setup)
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return m.out, nil
}

// mapRun is one call of Map.
type mapRun[T, R any] struct {
	fn    func(ctx context.Context, worker int, item T) (R, error)
	items []T
	out   []R
}

// mapTask is the job of one item of a Map.
type mapTask[T, R any] struct {
	m *mapRun[T, R]
	g *Group
	i int
}

func (t *mapTask[T, R]) Run(worker int)   { t.g.run(t, worker) }
func (t *mapTask[T, R]) drop(cause error) { t.g.dropOne(cause) }

func (t *mapTask[T, R]) call(ctx context.Context, worker int) error {
	r, err := t.m.fn(ctx, worker, t.m.items[t.i])
	if err == nil {
		t.m.out[t.i] = r
	}
	return err
}
