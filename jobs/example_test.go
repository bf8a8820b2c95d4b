package jobs_test

import (
	"fmt"

	"github.com/gcbench/gcbench/jobs"
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
