package gcsim_test

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// Compare per-job and batched dispatch on a small heap, interleaved.
func ExampleCompare() {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Nursery = 16<<20, 8<<20, 256<<10
	cfg.Workers, cfg.Backend = 2, workerpool.Goroutines
	cfg.Mutator.BarrierStores, cfg.Mutator.Published = 400, 20
	cfg.Mutator.MaxLargeObject = 32 << 10
	res, err := gcsim.Compare(context.Background(), cfg, gcsim.CompareOptions{
		Modes: []gcsim.Mode{gcsim.PerJob, gcsim.Batch}, GCs: 20, Warmup: 5,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Modes {
		r := m.Records[0]
		fmt.Printf("%s: %d collections, %d jobs each, %d enqueue lock acquisition(s)\n",
			m.Mode, len(m.Records), r.Jobs, r.Pool.EnqueueLockAcquisitions)
	}
	// Output:
	// perjob: 20 collections, 17 jobs each, 17 enqueue lock acquisition(s)
	// batch: 20 collections, 17 jobs each, 1 enqueue lock acquisition(s)
}
