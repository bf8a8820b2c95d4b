package jobs

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitCount(t *testing.T) {
	assert.Equal(t, 1, SplitCount(1))
	assert.Equal(t, 8, SplitCount(2))
	assert.Equal(t, 32, SplitCount(8))
	assert.Equal(t, math.MaxInt/4*4, SplitCount(math.MaxInt/4))
	want := fmt.Sprintf("want 1 to %d", math.MaxInt/4)
	assert.PanicsWithValue(t, "jobs.SplitCount: workers = 0, "+want, func() { SplitCount(0) })
	assert.PanicsWithValue(t, fmt.Sprintf("jobs.SplitCount: workers = %d, %s", math.MaxInt/4+1, want), func() { SplitCount(math.MaxInt/4 + 1) })
}

func TestRangeCoversEveryItemOnce(t *testing.T) {
	for total := 0; total < 70; total++ {
		for parts := 1; parts < 40; parts++ {
			seen := make([]int, total)
			prevHi := 0
			for i := range parts {
				lo, hi := Range(total, parts, i)
				require.Equal(t, prevHi, lo, "parts must be contiguous")
				require.LessOrEqual(t, lo, hi)
				for k := lo; k < hi; k++ {
					seen[k]++
				}
				prevHi = hi
			}
			require.Equal(t, total, prevHi)
			for k, c := range seen {
				require.Equal(t, 1, c, "item %d of %d in %d parts", k, total, parts)
			}
		}
	}
}

func TestRangeLastPartTakesRemainder(t *testing.T) {
	lo, hi := Range(10, 3, 2)
	assert.Equal(t, [2]int{6, 10}, [2]int{lo, hi})
	lo, hi = Range(10, 3, 0)
	assert.Equal(t, [2]int{0, 3}, [2]int{lo, hi})
}

func TestRangePanicsOnBadArguments(t *testing.T) {
	assert.Panics(t, func() { Range(-1, 1, 0) })
	assert.Panics(t, func() { Range(10, 0, 0) })
	assert.Panics(t, func() { Range(10, 3, 3) })
	assert.Panics(t, func() { Range(10, 3, -1) })
}

func TestFuncRunsWithWorkerIndex(t *testing.T) {
	got := 0
	var j Job = Func(func(w int) { got = w })
	j.Run(7)
	assert.Equal(t, 7, got)
}
