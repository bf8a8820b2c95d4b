package workerpool_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// A group waits for its own jobs only and returns its own errors; its jobs
// get the group's context.
func ExamplePool_NewGroup() {
	pool, err := workerpool.New(workerpool.Options{}) // GOMAXPROCS workers
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	words := []string{"alpha", "beta", "gamma", "delta"}
	upper := make([]string, len(words))
	g := pool.NewGroup(context.Background())
	for i, w := range words {
		g.Go(func(ctx context.Context, worker int) error {
			upper[i] = strings.ToUpper(w)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	fmt.Println(upper)
	// Output: [ALPHA BETA GAMMA DELTA]
}

// With GroupCancelOnError the first error cancels the group's context, its
// unstarted jobs are dropped, and Wait returns that error; a panic comes
// back as a *workerpool.PanicError, to this group only.
func ExampleGroupCancelOnError() {
	pool, err := workerpool.New(workerpool.Options{Workers: 1})
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	notFound := errors.New("not found")
	var ran atomic.Int64
	g := pool.NewGroup(context.Background(), workerpool.GroupCancelOnError())
	g.GoBatch( // one lock acquisition, one wake
		func(ctx context.Context, worker int) error { ran.Add(1); return nil },
		func(ctx context.Context, worker int) error { ran.Add(1); return notFound },
		func(ctx context.Context, worker int) error { ran.Add(1); return nil }, // dropped
	)
	err = g.Wait()
	fmt.Println(errors.Is(err, notFound), ran.Load())
	// Output: true 2
}

// Map returns typed results in the items' order; the items go to the
// workers as one batch.
func ExampleMap() {
	pool, err := workerpool.New(workerpool.Options{})
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	lengths, err := workerpool.Map(context.Background(), pool, []string{"a", "bb", "ccc"},
		func(ctx context.Context, worker int, s string) (int, error) { return len(s), nil })
	fmt.Println(lengths, err)
	// Output: [1 2 3] <nil>
}

// A bounded queue: TryEnqueue refuses at the bound, EnqueueCtx waits for
// room until its context ends.
func ExamplePool_TryEnqueue() {
	pool, err := workerpool.New(workerpool.Options{Workers: 1, MaxQueued: 2})
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	release := make(chan struct{})
	busy := make(chan struct{})
	_ = pool.Enqueue(jobs.Func(func(int) { close(busy); <-release })) // holds the one worker
	<-busy
	var n atomic.Int64
	count := jobs.Func(func(int) { n.Add(1) })
	fmt.Println(pool.TryEnqueue(count), pool.TryEnqueue(count))
	fmt.Println(errors.Is(pool.TryEnqueue(count), workerpool.ErrQueueFull))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fmt.Println(errors.Is(pool.EnqueueCtx(ctx, count), context.Canceled))
	close(release)
	if err := pool.EnqueueCtx(context.Background(), count); err != nil { // waits for room
		panic(err)
	}
	if err := pool.Join(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(n.Load())
	// Output:
	// <nil> <nil>
	// true
	// true
	// 3
}

// Shutdown stops accepting, runs the queued jobs until its context ends,
// then discards the rest and says how many it dropped.
func ExamplePool_Shutdown() {
	pool, err := workerpool.New(workerpool.Options{Workers: 1})
	if err != nil {
		panic(err)
	}
	release := make(chan struct{})
	busy := make(chan struct{})
	_ = pool.Enqueue(jobs.Func(func(int) { close(busy); <-release }))
	<-busy
	for range 10 {
		_ = pool.EnqueueFunc(func(int) {})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has passed while the worker is busy
	go func() {
		for pool.Stats().Dropped < 10 { // until Shutdown has discarded the queue
			runtime.Gosched()
		}
		close(release)
	}()
	err = pool.Shutdown(ctx)
	var dropped *workerpool.DroppedError
	if errors.As(err, &dropped) {
		fmt.Println(dropped.Count, "dropped:", errors.Is(err, context.Canceled))
	}
	fmt.Println(errors.Is(pool.Enqueue(jobs.Func(func(int) {})), workerpool.ErrClosed))
	// Output:
	// 10 dropped: true
	// true
}
