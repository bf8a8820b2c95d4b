package poolbench_test

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/poolbench"
	"github.com/gcbench/gcbench/workerpool"
)

// Compare one wake policy's Enqueue and EnqueueBatch with a goroutine per
// item, and find the fastest batch configuration.
func ExampleCompare() {
	rep, err := poolbench.Compare(context.Background(), poolbench.Options{
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
	fmt.Println("best batch:", rep.Best(poolbench.Throughput, "batch").Contender)
	// Output:
	// goroutine-per-item
	// goroutines/targeted/enqueue
	// goroutines/targeted/batch
	// best batch: goroutines/targeted/batch
}
