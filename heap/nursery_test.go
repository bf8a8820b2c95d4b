package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNurseryBumpAndReset(t *testing.T) {
	h := newHeap(t, smallConfig())
	a, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	b, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	assert.Equal(t, a+48, b)
	assert.True(t, h.InNursery(a))
	n := 2
	for ; ; n++ {
		if _, err = h.AllocNursery(4096, 0); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, ErrNurseryFull)
	assert.LessOrEqual(t, h.NurseryUsed(), smallConfig().Nursery)
	_, err = h.MajorCollect()
	assert.ErrorIs(t, err, ErrNurseryNotEmpty, "a major collection needs an empty nursery")
	h.PrepareCards()
	h.ResetNursery()
	assert.Zero(t, h.NurseryUsed())
	c, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	assert.Equal(t, a, c)
}
