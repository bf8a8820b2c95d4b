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
	data := make([]int, 1000)
	blocks := make([][]int, 8)
	for i := range blocks {
		blocks[i] = data[i*125 : (i+1)*125]
	}
	scan := func(b []int) {
		for i := range b {
			b[i]++
		}
	}
	sum := func(b []int) (s int) {
		for _, x := range b {
			s += x
		}
		return s
	}
	ctx := context.Background()
	run := func() error {
		pool, err := workerpool.New(workerpool.Options{}) // GOMAXPROCS goroutine workers
		if err != nil {
			return err
		}
		defer pool.Close()
		g := pool.NewGroup(ctx)
		for _, b := range blocks {
			g.Go(func(ctx context.Context, worker int) error { scan(b); return nil })
		}
		if err := g.Wait(); err != nil { // this group's jobs only; its first error or panic, nobody else's
			return err
		}
		sums, err := workerpool.Map(ctx, pool, blocks, func(ctx context.Context, worker int, b []int) (int, error) { return sum(b), nil })
		if err != nil { // one batch: one lock, one wake; results in order; stops at the first error
			return err
		}

		// SGen's round: a gated pool of OS threads, woken by broadcast, as SGen's pool is.
		sgen, err := workerpool.New(workerpool.Options{Workers: 8, Backend: workerpool.Threads, Wake: workerpool.Broadcast, Gated: true})
		if err != nil {
			return err
		}
		defer sgen.Close()
		parts := jobs.SplitCount(sgen.Workers()) // 8 workers → 32 jobs, as SGen splits a scan
		batch := make([]jobs.Job, parts)
		for i := range batch {
			batch[i] = jobs.Func(func(worker int) { lo, hi := jobs.Range(len(data), parts, i); scan(data[lo:hi]) })
		}
		if err := sgen.StartBatch(batch); err != nil { // queue the batch, open the gate: one lock acquisition, one wake
			return err
		}
		if err := sgen.Join(ctx); err != nil { // waits for the round; a job's panic comes back as an error
			return err
		}
		st := sgen.Stats() // exact counters: locks, wake calls, workers woken, futile wakes, futex calls
		fmt.Println(sums)
		fmt.Println(st.EnqueueLockAcquisitions, st.EnqueueWakeCalls, st.TotalJobsRun())
		return nil
	}
	if err := run(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(sum(data))
	// Output:
	// [125 125 125 125 125 125 125 125]
	// 1 1 32
	// 2000
}
