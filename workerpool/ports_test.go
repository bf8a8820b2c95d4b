package workerpool

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The peers' own tests and examples, ported onto the pool (issue 41): each
// failed there only because a job waiting on its own pool blocked its
// worker, or because backpressure did not count what it promised. Each
// names its origin; the code is this package's own.

// md5All digests every regular file under root with bounded parallelism,
// as golang.org/x/sync/errgroup's pipeline example (ExampleGroup_pipeline,
// after https://go.dev/blog/pipelines) does: a walking stage, digesting
// stages, and a collecting one. There the stages are goroutines joined by
// channels; here they are jobs of one group, and the first error cancels
// the rest, as errgroup.WithContext does.
func md5All(ctx context.Context, p *Pool, root string) (map[string][md5.Size]byte, error) {
	var mu sync.Mutex
	sums := map[string][md5.Size]byte{}
	g := p.NewGroup(ctx, GroupCancelOnError())
	g.Go(func(ctx context.Context, _ int) error {
		return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			g.Go(func(ctx context.Context, _ int) error {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				sum := md5.Sum(data)
				mu.Lock()
				sums[path] = sum
				mu.Unlock()
				return ctx.Err()
			})
			return ctx.Err()
		})
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sums, nil
}

// TestPortErrgroupMD5Pipeline: errgroup's md5 pipeline, run from a job of
// a 1-worker pool (a request handler's job, say): its group's Wait runs
// the walking and digesting jobs on that one worker.
func TestPortErrgroupMD5Pipeline(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	var sums map[string][md5.Size]byte
	outer := p.NewGroup(timeoutCtx(t))
	outer.Go(func(ctx context.Context, _ int) error {
		var err error
		sums, err = md5All(ctx, p, ".")
		return err
	})
	require.NoError(t, outer.WaitCtx(timeoutCtx(t)))
	data, err := os.ReadFile("ports_test.go")
	require.NoError(t, err)
	assert.Equal(t, md5.Sum(data), sums["ports_test.go"])
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	files := 0
	for _, e := range entries {
		if e.Type().IsRegular() {
			files++
		}
	}
	assert.GreaterOrEqual(t, len(sums), files)
}

// TestPortConcCancelOnError: conc's ExampleContextPool_WithCancelOnError
// (github.com/sourcegraph/conc, pool/context_pool_test.go). Three tasks on
// a pool of conc's size, 4 (WithMaxGoroutines(4)); two wait for the
// context, the third fails and cancels it. Tasks that block on a channel
// hold their workers: on a pool smaller than the tasks that wait for each
// other (the default pool on a 2-core machine) they cannot all run, as the
// package doc says; the port sizes the pool as the example does.
func TestPortConcCancelOnError(t *testing.T) {
	p := newPool(t, Options{Workers: 4})
	g := p.NewGroup(timeoutCtx(t), GroupCancelOnError())
	failure := errors.New("I will cancel all other tasks!")
	for i := range 3 {
		g.Go(func(ctx context.Context, _ int) error {
			if i == 2 {
				return failure
			}
			<-ctx.Done()
			return nil
		})
	}
	err := g.Wait()
	assert.Equal(t, failure, err)
}

// TestPortConcRendezvous: conc's iter test "allows more than
// defaultMaxGoroutines() concurrent tasks" (iter/iter_test.go): 2 ×
// GOMAXPROCS tasks that each wait until all of them run, on a pool of that
// many workers (conc's MaxGoroutines), through Map.
func TestPortConcRendezvous(t *testing.T) {
	want := 2 * runtime.GOMAXPROCS(0)
	p := newPool(t, Options{Workers: want})
	var running atomic.Int64
	all := make(chan struct{})
	ctx := timeoutCtx(t)
	_, err := Map(ctx, p, make([]int, want), func(ctx context.Context, _ int, _ int) (struct{}, error) {
		if int(running.Add(1)) == want {
			close(all)
		}
		select {
		case <-all:
			return struct{}{}, nil
		case <-ctx.Done():
			return struct{}{}, fmt.Errorf("only %d of %d tasks ran at once: %w", running.Load(), want, ctx.Err())
		}
	})
	require.NoError(t, err)
}

// TestPortPondTrySubmit: pond's TestPoolTrySubmit (github.com/alitto/pond,
// pool_test.go): 1 worker and a queue of 1 take two tasks at once — the
// idle worker is room — refuse the third, and refuse everything once
// stopped. Before issue 41 the second was refused whenever the worker had
// not yet taken the first.
func TestPortPondTrySubmit(t *testing.T) {
	p := newPool(t, Options{Workers: 1, MaxQueued: 1})
	first := make(chan struct{})
	var ran atomic.Int64
	require.NoError(t, p.TryEnqueue(jobFunc(func() { first <- struct{}{}; ran.Add(1) })))
	require.NoError(t, p.TryEnqueue(jobFunc(func() { ran.Add(1) })))
	assert.ErrorIs(t, p.TryEnqueue(jobFunc(func() { ran.Add(1) })), ErrQueueFull)
	testwait.Recv(t, first, 20*time.Second, "the first job's start")
	require.NoError(t, p.Shutdown(timeoutCtx(t)))
	assert.ErrorIs(t, p.TryEnqueue(jobFunc(func() {})), ErrClosed)
	st := p.Stats()
	assert.EqualValues(t, 2, st.Submitted)
	assert.EqualValues(t, 2, st.Completed)
	assert.EqualValues(t, 2, ran.Load())
}

// TestPortCrawler: a crawler whose page jobs Go into their own group,
// limited to 4 pages at once, on the default pool. With Go a page at the
// limit waits for a page to finish while every running page does the
// same: it deadlocked after 4 pages. TryGo lets a page crawl a link
// itself when the group is full (errgroup's TryGo, for the same reason).
func TestPortCrawler(t *testing.T) {
	const pages = 200
	links := func(page int) []int { // a site of 200 pages, each linking to three others
		return []int{(page*7 + 1) % pages, (page*13 + 5) % pages, (page + 1) % pages}
	}
	p := newPool(t, Options{})
	var seen sync.Map
	var visited atomic.Int64
	g := p.NewGroup(timeoutCtx(t), GroupLimit(4))
	var crawl func(ctx context.Context, page int) error
	crawl = func(ctx context.Context, page int) error {
		if _, dup := seen.LoadOrStore(page, true); dup {
			return nil
		}
		visited.Add(1)
		for _, l := range links(page) {
			if !g.TryGo(func(ctx context.Context, _ int) error { return crawl(ctx, l) }) {
				if err := crawl(ctx, l); err != nil {
					return err
				}
			}
		}
		return nil
	}
	g.Go(func(ctx context.Context, _ int) error { return crawl(ctx, 0) })
	require.NoError(t, g.WaitCtx(timeoutCtx(t)))
	assert.EqualValues(t, pages, visited.Load())
}

// jobFunc makes a job of f, which ignores its worker.
type jobFunc func()

func (f jobFunc) Run(int) { f() }
