package protocols_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/internal/protocols"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// Run the stress-epoll protocol at a small size, in both variants, and read
// the ratio of the lock-free list's events/ms to the mutex list's at each
// producer count.
func ExampleCompareReadyList() {
	rep, err := protocols.CompareReadyList(context.Background(), protocols.ReadyListOptions{
		Producers: []int{8, 16}, Events: 10_000, Repetitions: 3,
	})
	if err != nil {
		panic(err)
	}
	for _, row := range rep.Rows {
		fmt.Println(row.Variant, row.Producers, len(row.MPSC.Samples), row.Ratio > 0)
	}
	// Output:
	// transition 8 3 true
	// transition 16 3 true
	// callback 8 3 true
	// callback 16 3 true
}

// Compare one wake policy's Enqueue and EnqueueBatch with a goroutine per
// item, and find the fastest batch configuration.
func ExampleComparePool() {
	rep, err := protocols.ComparePool(context.Background(), protocols.PoolOptions{
		Items: 10_000, RoundTrips: 100, Repetitions: 1,
		Backends: []workerpool.Backend{workerpool.Goroutines},
		Wakes:    []workerpool.WakePolicy{workerpool.Targeted},
	})
	if err != nil {
		panic(err)
	}
	for _, row := range rep.Rows {
		fmt.Println(row.Contender)
	}
	fmt.Println("best batch:", rep.Best(protocols.Throughput, "batch").Contender)
	// Output:
	// goroutine-per-item
	// goroutines/targeted/enqueue
	// goroutines/targeted/batch
	// best batch: goroutines/targeted/batch
}

// Run the EventPipe stress protocol briefly with both reservation
// policies, which alternate going first, and check each run's accounting:
// the events read back and the events dropped are every event written.
func ExampleTraceStress() {
	res, err := protocols.TraceStress(context.Background(), protocols.TraceStressOptions{
		Writers: 2, PayloadSize: 64, Limit: 4 * trace.MinLimit, Duration: 20 * time.Millisecond,
		Iterations: 2, FlushInterval: 5 * time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	for _, run := range res.Runs {
		fmt.Println(run.Iteration, run.Policy, run.EventsRead > 0, run.EventsRead+run.EventsDropped == run.Session.Written)
	}
	// Output:
	// 0 lockless true true
	// 0 locked true true
	// 1 locked true true
	// 1 lockless true true
}
