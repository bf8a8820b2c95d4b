package stats_test

import (
	"fmt"

	"github.com/gcbench/gcbench/analysis/stats"
)

func ExampleSummarize() {
	s := stats.Summarize([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 1000})
	fmt.Printf("mean %.1f, 25%% trimmed mean %.1f, median %.1f, p99 %.0f\n", s.Mean, s.Trim25, s.Median, s.P99)
	// Output: mean 104.5, 25% trimmed mean 5.5, median 5.5, p99 1000
}
