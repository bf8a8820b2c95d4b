package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSizeClassTable(t *testing.T) {
	classes := SizeClasses()
	require.Len(t, classes, NumSizeClasses)
	assert.Equal(t, HeaderSize, classes[0])
	assert.Equal(t, MaxSmallObject, classes[len(classes)-1])
	for i, s := range classes {
		assert.Zero(t, s%8, "class %d stride %d is 8-aligned", i, s)
		if i > 0 {
			assert.Greater(t, s, classes[i-1], "classes ascend")
		}
		per := BlockSize / s
		assert.GreaterOrEqual(t, per, 2)
		assert.LessOrEqual(t, BlockSize-per*s, 2048, "class %d wastes at most 2 KiB per block", s)
	}
}

func TestSizeClassIsTheSmallestThatFits(t *testing.T) {
	classes := SizeClasses()
	for size := HeaderSize; size <= MaxSmallObject; size++ {
		c, stride, ok := SizeClass(size)
		require.True(t, ok)
		require.Equal(t, classes[c], stride)
		require.GreaterOrEqual(t, stride, size)
		if c > 0 {
			require.Less(t, classes[c-1], size, "size %d: a smaller class fits", size)
		}
	}
	for _, size := range []int{0, 8, 15, MaxSmallObject + 1} {
		_, _, ok := SizeClass(size)
		assert.False(t, ok, "size %d", size)
	}
}
