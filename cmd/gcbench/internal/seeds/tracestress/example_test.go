package tracestress_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/tracestress"
	"github.com/gcbench/gcbench/trace"
)

// Run the EventPipe stress protocol briefly with both reservation
// policies, which alternate going first, and check each run's accounting:
// the events read back and the events dropped are every event written.
func ExampleCompare() {
	res, err := tracestress.Compare(context.Background(), tracestress.Options{
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
