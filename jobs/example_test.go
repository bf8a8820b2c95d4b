package jobs_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/jobs/mpsc"
)

// Split 1000 major-heap blocks among the scan jobs of an 8-worker collection.
func ExampleRange() {
	parts := jobs.SplitCount(8)
	for _, i := range []int{0, 1, parts - 1} {
		lo, hi := jobs.Range(1000, parts, i)
		fmt.Printf("job %d scans blocks [%d, %d)\n", i, lo, hi)
	}
	// Output:
	// job 0 scans blocks [0, 31)
	// job 1 scans blocks [31, 62)
	// job 31 scans blocks [961, 1000)
}

// Wrap a round's jobs in Timed so that each run reports which worker ran it
// and for how long; the coordinator drains the records after the round.
func ExampleTimed() {
	done := new(mpsc.List[jobs.Completion])
	timed := make([]jobs.Timed, 3)
	for i := range timed {
		timed[i] = jobs.Timed{Job: jobs.Func(func(int) {}), JobIndex: i, Done: done}
	}
	var wg sync.WaitGroup
	for i := range timed {
		wg.Go(func() { timed[i].Run(i) }) // a pool would pass its worker index
	}
	wg.Wait()
	perWorker := make([]int, 3)
	n, _ := done.Drain(context.Background(), len(timed), func(n *mpsc.Node[jobs.Completion]) {
		perWorker[n.Value.Worker]++
	})
	fmt.Println(n, perWorker)
	// Output: 3 [1 1 1]
}
