package jobs_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// Workers hand per-job completion records to the coordinating goroutine
// through a lock-free list; the coordinator knows how many jobs it ran, so
// it drains exactly that many. The nodes are preallocated once and can be
// pushed again in the next round.
func ExampleMPSCList() {
	const nJobs = 4
	var done jobs.MPSCList[jobs.Completion]
	nodes := make([]jobs.Node[jobs.Completion], nJobs)
	var wg sync.WaitGroup
	for j := range nJobs {
		wg.Go(func() { // a pool worker would run the job here
			start := time.Now()
			nodes[j].Value = jobs.Completion{Job: j, Worker: j % 2, Start: start, End: start.Add(time.Duration(j+1) * time.Millisecond)}
			done.Push(&nodes[j])
		})
	}
	wg.Wait()
	var longest time.Duration
	n, err := done.Drain(context.Background(), nJobs, func(n *jobs.Node[jobs.Completion]) {
		longest = max(longest, n.Value.Duration())
	})
	fmt.Println(n, err, longest)
	// Output: 4 <nil> 4ms
}

// Wrap a round's jobs in Timed so that each run reports which worker ran it
// and for how long; the coordinator drains the records after the round.
func ExampleTimed() {
	done := new(jobs.MPSCList[jobs.Completion])
	timed := make([]jobs.Timed, 3)
	for i := range timed {
		timed[i] = jobs.Timed{Job: jobs.Func(func(int) {}), Index: i, Done: done}
	}
	var wg sync.WaitGroup
	for i := range timed {
		wg.Go(func() { timed[i].Run(i) }) // a pool would pass its worker index
	}
	wg.Wait()
	perWorker := make([]int, 3)
	n, _ := done.Drain(context.Background(), len(timed), func(n *jobs.Node[jobs.Completion]) {
		perWorker[n.Value.Worker]++
	})
	fmt.Println(n, perWorker)
	// Output: 3 [1 1 1]
}
