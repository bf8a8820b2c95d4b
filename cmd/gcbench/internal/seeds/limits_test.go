package seeds

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMulBounded(t *testing.T) {
	for _, tc := range []struct {
		limit uint64
		xs    []int
		want  uint64
		ok    bool
	}{
		{100, nil, 1, true},
		{100, []int{10, 10}, 100, true},
		{100, []int{10, 11}, 0, false},
		{math.MaxUint64, []int{1 << 32, 1 << 32}, 0, false}, // 2^64 wraps to 0 unchecked
		{math.MaxUint64, []int{math.MaxInt, 2}, math.MaxUint64 - 1, true},
		{math.MaxUint64, []int{math.MaxInt, 3}, 0, false},
		{1 << 42, []int{0, math.MaxInt}, 0, true},
	} {
		got, ok := MulBounded(tc.limit, tc.xs...)
		assert.Equal(t, tc.ok, ok, "%v", tc.xs)
		assert.Equal(t, tc.want, got, "%v", tc.xs)
	}
}
