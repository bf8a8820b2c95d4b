package mpsc_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gcbench/gcbench/jobs/mpsc"
)

// result is what a worker reports when it finishes a task.
type result struct {
	task int
	took time.Duration
}

// Workers hand per-task records to the coordinating goroutine through a
// lock-free list; the coordinator knows how many tasks it ran, so it
// drains exactly that many. The nodes are preallocated once and can be
// pushed again in the next round.
func ExampleList() {
	const tasks = 4
	var done mpsc.List[result]
	nodes := make([]mpsc.Node[result], tasks)
	var wg sync.WaitGroup
	for i := range tasks {
		wg.Go(func() { // a pool worker would run the task here
			nodes[i].Value = result{task: i, took: time.Duration(i+1) * time.Millisecond}
			done.Push(&nodes[i])
		})
	}
	wg.Wait()
	var longest time.Duration
	n, err := done.Drain(context.Background(), tasks, func(n *mpsc.Node[result]) {
		longest = max(longest, n.Value.took)
	})
	fmt.Println(n, err, longest)
	// Output: 4 <nil> 4ms
}

// A consumer that does not know how many pushes to expect takes what has
// arrived with PopAll; MutexList and List are interchangeable through Queue.
func ExampleQueue() {
	for _, q := range []mpsc.Queue[int]{new(mpsc.List[int]), new(mpsc.MutexList[int])} {
		nodes := make([]mpsc.Node[int], 3)
		for i := range nodes {
			nodes[i].Value = 10 * i
			q.Push(&nodes[i])
		}
		var got []int
		q.PopAll(func(n *mpsc.Node[int]) { got = append(got, n.Value) })
		_, st := q.TryPop()
		fmt.Println(got, st)
	}
	// Output:
	// [0 10 20] empty
	// [0 10 20] empty
}
