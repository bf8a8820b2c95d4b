package workerpool_test

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// Example_readme is the README's "library in ten lines", run: a test in
// cmd/gcbench checks that the README's snippet is this code.
func Example_readme() {
	blocks := make([]int, 1000)
	scan := func(b []int) {
		for i := range b {
			b[i]++
		}
	}
	ctx := context.Background()
	run := func() error {
		pool, err := workerpool.New(workerpool.Options{Workers: 8, Backend: workerpool.Threads, Wake: workerpool.Broadcast, Gated: true})
		if err != nil {
			return err
		}
		defer pool.Close()
		parts := jobs.SplitCount(pool.Workers()) // 8 workers → 32 jobs, as SGen splits a scan
		batch := make([]jobs.Job, parts)
		for i := range batch {
			batch[i] = jobs.Func(func(worker int) { lo, hi := jobs.Range(len(blocks), parts, i); scan(blocks[lo:hi]) })
		}
		if err := pool.StartBatch(batch); err != nil { // queue the batch, open the gate: one lock acquisition, one wake
			return err
		}
		if err := pool.Join(ctx); err != nil { // waits for all; a job's panic comes back as an error
			return err
		}
		st := pool.Stats() // exact counters: locks, wake calls, workers woken, futile wakes, futex calls
		ran := uint64(0)
		for _, n := range st.JobsRun {
			ran += n
		}
		fmt.Println(st.EnqueueLockAcquisitions, st.EnqueueWakeCalls, ran)
		return nil
	}
	if err := run(); err != nil {
		fmt.Println(err)
	}
	sum := 0
	for _, b := range blocks {
		sum += b
	}
	fmt.Println(sum)
	// Output:
	// 1 1 32
	// 1000
}
