package workerpool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestGroupRunsItsJobsAndReturnsItsFirstError(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q})
		g := p.NewGroup(context.Background())
		var ran atomic.Int64
		boom := errors.New("boom")
		for i := range 50 {
			g.Go(func(ctx context.Context, worker int) error {
				ran.Add(1)
				if i == 7 {
					return boom
				}
				return nil
			})
		}
		err := g.Wait()
		assert.ErrorIs(t, err, boom)
		assert.EqualValues(t, 50, ran.Load())
		assert.EqualValues(t, 1, p.Stats().Failed)
		assert.NoError(t, p.Join(timeoutCtx(t)), "a group's errors are not the pool's")
	})
}

func TestGroupAllErrorsAndPanics(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	g := p.NewGroup(context.Background(), GroupAllErrors())
	e1, e2 := errors.New("one"), errors.New("two")
	g.GoBatch(
		func(context.Context, int) error { return e1 },
		func(context.Context, int) error { panic("three") },
		func(context.Context, int) error { return nil },
		func(context.Context, int) error { return e2 },
	)
	err := g.Wait()
	assert.ErrorIs(t, err, e1)
	assert.ErrorIs(t, err, e2)
	assert.ErrorIs(t, err, ErrJobPanicked)
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "three", pe.Value)
	st := p.Stats()
	assert.EqualValues(t, 2, st.Failed)
	assert.EqualValues(t, 1, st.Panicked)
	assert.NoError(t, p.Close(), "the group collected its panic")
}

// TestGroupWaitIsScoped: one group's slow job does not hold another's
// Wait, and panics reach only their own group.
func TestGroupWaitIsScoped(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		slow := p.NewGroup(context.Background())
		release := make(chan struct{})
		slow.Go(func(context.Context, int) error { <-release; panic("slow's") })
		quick := p.NewGroup(context.Background())
		var ran atomic.Int64
		for range 20 {
			quick.Go(func(context.Context, int) error { ran.Add(1); return nil })
		}
		require.NoError(t, quick.Wait(), "the other group's job is still running")
		assert.EqualValues(t, 20, ran.Load())
		close(release)
		assert.ErrorIs(t, slow.Wait(), ErrJobPanicked)
	})
}

// TestGroupWaitsForChildren: jobs added by the group's jobs are waited for.
func TestGroupWaitsForChildren(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	g := p.NewGroup(context.Background())
	var ran atomic.Int64
	var spawn func(depth int) func(context.Context, int) error
	spawn = func(depth int) func(context.Context, int) error {
		return func(context.Context, int) error {
			ran.Add(1)
			if depth > 0 {
				g.Go(spawn(depth - 1))
				g.Go(spawn(depth - 1))
			}
			return nil
		}
	}
	g.Go(spawn(6))
	require.NoError(t, g.Wait())
	assert.EqualValues(t, 127, ran.Load())
}

// TestGroupCancelDropsOnlyItsUnstartedJobs: while every worker is held,
// cancelling one group drops its queued jobs (and those in a grab) at
// once; the other group's run.
func TestGroupCancelDropsOnlyItsUnstartedJobs(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		b := blockWorkers(t, p)
		ctx, cancel := context.WithCancel(context.Background())
		a := p.NewGroup(ctx)
		other := p.NewGroup(context.Background())
		var aRan, otherRan atomic.Int64
		for range 100 {
			a.Go(func(context.Context, int) error { aRan.Add(1); return nil })
			other.Go(func(context.Context, int) error { otherRan.Add(1); return nil })
		}
		cancel()
		err := a.Wait() // returns with the workers still held: nothing of a's runs
		var de *DroppedError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, 100, de.Count)
		assert.ErrorIs(t, err, ErrDropped)
		assert.ErrorIs(t, err, context.Canceled)
		before := p.Stats()
		b.open()
		require.NoError(t, other.Wait())
		assert.EqualValues(t, 100, otherRan.Load())
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.Zero(t, aRan.Load())
		d := p.Stats().Sub(before)
		assert.EqualValues(t, 100+2, d.Completed, "the other group's jobs and the two blockers ran; a's were skipped")
		assert.EqualValues(t, 100, d.Dropped, "a's skipped jobs count as dropped")
	})
}

// TestGroupGoexitIsReportedOnce: a group's job that calls runtime.Goexit
// is that group's error, and Join, Shutdown and Close do not report it
// again.
func TestGroupGoexitIsReportedOnce(t *testing.T) {
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			// One worker and one batch: the jobs after the Goexit are in
			// its grab, which the replacing goroutine must finish.
			p, err := New(Options{Workers: 1, Backend: b})
			require.NoError(t, err)
			g := p.NewGroup(context.Background())
			var ran atomic.Int64
			fns := []func(context.Context, int) error{func(context.Context, int) error { runtimeGoexit(); return nil }}
			for range 9 {
				fns = append(fns, func(context.Context, int) error { ran.Add(1); return nil })
			}
			g.GoBatch(fns...)
			require.ErrorIs(t, g.WaitCtx(timeoutCtx(t)), ErrJobGoexit) // a lost job would keep it waiting
			assert.EqualValues(t, 9, ran.Load(), "the Goexit's grab-mates ran")
			assert.NoError(t, p.Join(timeoutCtx(t)), "Join: the group has it")
			assert.EqualValues(t, 1, p.Stats().Panicked)
			assert.NoError(t, p.Close(), "Close: no uncollected panic")
		})
	}
}

// TestGroupCancelReachesAWorkersGrab: jobs already in a worker's grab,
// behind a running one, are dropped by the cancel too.
func TestGroupCancelReachesAWorkersGrab(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	g := p.NewGroup(ctx)
	started := make(chan struct{})
	var ran atomic.Int64
	fns := []func(context.Context, int) error{func(ctx context.Context, _ int) error {
		close(started)
		<-ctx.Done()
		return nil
	}}
	for range 40 {
		fns = append(fns, func(context.Context, int) error { ran.Add(1); return nil })
	}
	g.GoBatch(fns...)
	<-started
	cancel()
	var de *DroppedError
	require.ErrorAs(t, g.Wait(), &de)
	assert.Equal(t, 40, de.Count)
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Zero(t, ran.Load())
}

func TestGroupCancelOnError(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	g := p.NewGroup(context.Background(), GroupCancelOnError())
	boom := errors.New("boom")
	var ran atomic.Int64
	fns := []func(context.Context, int) error{func(context.Context, int) error { return boom }}
	for range 30 {
		fns = append(fns, func(context.Context, int) error { ran.Add(1); return nil })
	}
	g.GoBatch(fns...)
	err := g.Wait()
	assert.ErrorIs(t, err, boom, "the job's error comes first")
	assert.Zero(t, ran.Load(), "one worker: everything after the failing job was dropped")
	assert.ErrorIs(t, context.Cause(g.Context()), boom)
}

func TestGroupLimit(t *testing.T) {
	p := newPool(t, Options{Workers: 4})
	g := p.NewGroup(context.Background(), GroupLimit(2))
	var in, most atomic.Int64
	fn := func(context.Context, int) error {
		n := in.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		in.Add(-1)
		return nil
	}
	for range 50 {
		g.Go(fn)
	}
	fns := make([]func(context.Context, int) error, 50)
	for i := range fns {
		fns[i] = fn
	}
	g.GoBatch(fns...)
	require.NoError(t, g.Wait())
	assert.LessOrEqual(t, most.Load(), int64(2))
}

func TestGroupRefusedWhereItCannotRun(t *testing.T) {
	gated := newPool(t, Options{Workers: 1, Gated: true})
	g := gated.NewGroup(context.Background())
	ran := false
	g.Go(func(context.Context, int) error { ran = true; return nil })
	assert.ErrorIs(t, g.Wait(), ErrGated)
	_, err := Map(context.Background(), gated, []int{1}, func(context.Context, int, int) (int, error) { return 0, nil })
	assert.ErrorIs(t, err, ErrGated)
	assert.False(t, ran)

	var zero Pool
	assert.ErrorIs(t, zero.NewGroup(context.Background()).Wait(), nil, "an empty group on no pool has nothing to report")
	z := zero.NewGroup(context.Background())
	z.Go(func(context.Context, int) error { return nil })
	assert.ErrorIs(t, z.Wait(), ErrNotInitialized)

	closed, err := New(Options{Workers: 1})
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	cg := closed.NewGroup(context.Background())
	cg.Go(func(context.Context, int) error { return nil })
	assert.ErrorIs(t, cg.Wait(), ErrClosed)

	if NativeAvailable {
		n, err := New(Options{Workers: 1, Backend: Native})
		require.NoError(t, err)
		defer n.Close()
		ng := n.NewGroup(context.Background())
		ng.Go(func(context.Context, int) error { return nil })
		assert.ErrorIs(t, ng.Wait(), ErrUnsupported)
		assert.ErrorIs(t, n.TryEnqueue(&countJob{}), ErrUnsupported)
		assert.ErrorIs(t, n.EnqueueCtx(context.Background(), &countJob{}), ErrUnsupported)
	}
}

// TestWaitFromOwnJob: a job that waits for its own group, or joins its own
// pool, through its context gets an error instead of a deadlock.
func TestWaitFromOwnJob(t *testing.T) {
	p := newPool(t, Options{Workers: 2})
	g := p.NewGroup(context.Background())
	var waitErr, joinErr, shutErr error
	g.Go(func(ctx context.Context, _ int) error {
		waitErr = g.WaitCtx(ctx)
		joinErr = p.Join(ctx)
		shutErr = p.Shutdown(ctx)
		return nil
	})
	require.NoError(t, g.Wait())
	assert.ErrorIs(t, waitErr, ErrCalledFromJob)
	assert.ErrorIs(t, joinErr, ErrCalledFromJob)
	assert.ErrorIs(t, shutErr, ErrCalledFromJob)
}

func TestGroupDiscardedJobsAreReported(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 2, Backend: c.b, Wake: c.w, Queue: c.q})
		b := blockWorkers(t, p)
		g := p.NewGroup(context.Background())
		for range 30 {
			g.Go(func(context.Context, int) error { return nil })
		}
		assert.Equal(t, 30, p.Discard())
		b.open()
		var de *DroppedError
		require.ErrorAs(t, g.Wait(), &de)
		assert.Equal(t, 30, de.Count)
		assert.EqualValues(t, 30, p.Stats().Dropped)
	})
}

func TestMap(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		p := newPool(t, Options{Workers: 3, Backend: c.b, Wake: c.w, Queue: c.q})
		items := make([]int, 500)
		for i := range items {
			items[i] = i
		}
		got, err := Map(context.Background(), p, items, func(_ context.Context, _ int, x int) (string, error) {
			return fmt.Sprint(x * 2), nil
		})
		require.NoError(t, err)
		for i, s := range got {
			require.Equal(t, fmt.Sprint(i*2), s)
		}
		empty, err := Map(context.Background(), p, nil, func(context.Context, int, int) (int, error) { return 0, nil })
		require.NoError(t, err)
		assert.Empty(t, empty)
	})
}

func TestMapStopsOnFirstError(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	boom := errors.New("boom")
	var ran atomic.Int64
	got, err := Map(context.Background(), p, make([]int, 100), func(_ context.Context, _ int, _ int) (int, error) {
		if ran.Add(1) == 3 {
			return 0, boom
		}
		return 1, nil
	})
	assert.ErrorIs(t, err, boom)
	assert.Nil(t, got)
	assert.EqualValues(t, 3, ran.Load(), "one worker: nothing ran after the error")
}

func TestMapOnABoundedPool(t *testing.T) {
	p := newPool(t, Options{Workers: 2, MaxQueued: 7})
	got, err := Map(context.Background(), p, make([]int, 100), func(_ context.Context, w int, _ int) (int, error) {
		return w, nil
	})
	require.NoError(t, err)
	assert.Len(t, got, 100)
}

// TestPropertyGroupsAreScoped runs random groups at once on one pool: each
// job runs at most once and exactly once unless its group was cancelled;
// each group's Wait returns only its own errors and panics, and reports as
// dropped exactly the jobs of its own that did not run.
func TestPropertyGroupsAreScoped(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		rapid.Check(t, func(rt *rapid.T) {
			workers := rapid.IntRange(1, 4).Draw(rt, "workers")
			p, err := New(Options{Workers: workers, Backend: c.b, Wake: c.w, Queue: c.q})
			if err != nil {
				rt.Fatalf("New: %v", err)
			}
			defer p.Close()
			type spec struct {
				jobs     int
				batch    bool
				cancelAt int // cancel after this many jobs ran; -1 never
				failing  int // the job that returns an error; -1 none
				panics   int // the job that panics; -1 none
				children int // jobs that each add one child
			}
			ngroups := rapid.IntRange(1, 4).Draw(rt, "groups")
			specs := make([]spec, ngroups)
			for i := range specs {
				n := rapid.IntRange(0, 60).Draw(rt, "jobs")
				specs[i] = spec{
					jobs:     n,
					batch:    rapid.Bool().Draw(rt, "batch"),
					cancelAt: rapid.IntRange(-1, n).Draw(rt, "cancelAt"),
					failing:  rapid.IntRange(-1, n-1).Draw(rt, "failing"),
					panics:   rapid.IntRange(-1, n-1).Draw(rt, "panics"),
					children: rapid.IntRange(0, min(n, 5)).Draw(rt, "children"),
				}
			}
			var wg sync.WaitGroup
			for gi, s := range specs {
				wg.Go(func() {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					g := p.NewGroup(ctx, GroupAllErrors())
					total := s.jobs + s.children
					runs := make([]atomic.Int32, total)
					var ran atomic.Int64
					job := func(id int) func(context.Context, int) error {
						return func(context.Context, int) error {
							if runs[id].Add(1) != 1 {
								rt.Errorf("group %d: job %d ran twice", gi, id)
							}
							if ran.Add(1) == int64(s.cancelAt) {
								cancel()
							}
							if id < s.children {
								g.Go(func(context.Context, int) error {
									runs[s.jobs+id].Add(1)
									return nil
								})
							}
							switch id {
							case s.failing:
								return fmt.Errorf("group %d job %d", gi, id)
							case s.panics:
								panic(fmt.Sprintf("group %d job %d", gi, id))
							}
							return nil
						}
					}
					fns := make([]func(context.Context, int) error, s.jobs)
					for i := range fns {
						fns[i] = job(i)
					}
					if s.batch {
						g.GoBatch(fns...)
					} else {
						for _, f := range fns {
							g.Go(f)
						}
					}
					err := g.Wait()
					notRun := 0
					for i := range runs {
						if r := runs[i].Load(); r > 1 {
							rt.Errorf("group %d: job %d ran %d times", gi, i, r)
						} else if r == 0 && i < s.jobs {
							notRun++
						}
					}
					var de *DroppedError
					switch {
					case errors.As(err, &de):
						if de.Count < notRun || de.Count > notRun+s.children {
							rt.Errorf("group %d: %d dropped reported, %d of its first jobs did not run", gi, de.Count, notRun)
						}
					case notRun > 0:
						rt.Errorf("group %d: %d jobs did not run, Wait said %v", gi, notRun, err)
					}
					if s.cancelAt < 0 && notRun > 0 {
						rt.Errorf("group %d: never cancelled, %d jobs did not run", gi, notRun)
					}
					// Only this group's errors.
					for _, e := range flatten(err) {
						var pe *PanicError
						msg := e.Error()
						if errors.As(e, &pe) {
							msg = fmt.Sprint(pe.Value)
						}
						if errors.Is(e, ErrDropped) {
							continue
						}
						var gj, jj int
						if _, serr := fmt.Sscanf(msg, "group %d job %d", &gj, &jj); serr != nil || gj != gi {
							rt.Errorf("group %d: Wait returned %q", gi, msg)
						}
					}
					if s.failing >= 0 && runs[s.failing].Load() == 1 && !contains(err, fmt.Sprintf("group %d job %d", gi, s.failing)) {
						rt.Errorf("group %d: its failing job ran, Wait said %v", gi, err)
					}
				})
			}
			wg.Wait()
			if err := p.Join(timeoutCtx(t)); err != nil {
				rt.Errorf("a group's panic reached the pool: %v", err)
			}
		})
	})
}

// flatten returns the errors that errors.Join combined in err.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, isDropped := err.(*DroppedError); !isDropped {
			if _, isPanic := err.(*PanicError); !isPanic {
				var out []error
				for _, e := range j.Unwrap() {
					out = append(out, flatten(e)...)
				}
				return out
			}
		}
	}
	return []error{err}
}

func contains(err error, msg string) bool {
	for _, e := range flatten(err) {
		var pe *PanicError
		if errors.As(e, &pe) && fmt.Sprint(pe.Value) == msg || e.Error() == msg {
			return true
		}
	}
	return false
}

// TestGoBatchAndMapAreOneBatch: GoBatch and Map queue their jobs under one
// lock acquisition with one wake call, as EnqueueBatch does.
func TestGoBatchAndMapAreOneBatch(t *testing.T) {
	for _, w := range []WakePolicy{Broadcast, Signal, Targeted} {
		t.Run(w.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 4, Wake: w})
			waitParked(t, p)
			before := p.Stats()
			g := p.NewGroup(context.Background())
			fns := make([]func(context.Context, int) error, 65)
			for i := range fns {
				fns[i] = func(context.Context, int) error { return nil }
			}
			g.GoBatch(fns...)
			d := p.Stats().Sub(before)
			assert.EqualValues(t, 1, d.EnqueueLockAcquisitions)
			assert.EqualValues(t, 1, d.EnqueueWakeCalls)
			require.NoError(t, g.Wait())
			require.NoError(t, p.Join(timeoutCtx(t)))

			waitParked(t, p)
			before = p.Stats()
			_, err := Map(context.Background(), p, make([]int, 65), func(context.Context, int, int) (int, error) {
				return 0, nil
			})
			require.NoError(t, err)
			d = p.Stats().Sub(before)
			assert.EqualValues(t, 1, d.EnqueueLockAcquisitions)
			assert.EqualValues(t, 1, d.EnqueueWakeCalls)
		})
	}
}
