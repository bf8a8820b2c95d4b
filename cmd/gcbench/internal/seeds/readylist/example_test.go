package readylist_test

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/readylist"
)

// Run the stress-epoll protocol at a small size, in both variants, and read
// the ratio of the lock-free list's events/ms to the mutex list's at each
// producer count.
func ExampleCompare() {
	rep, err := readylist.Compare(context.Background(), readylist.Options{
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
