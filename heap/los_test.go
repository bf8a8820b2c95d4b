package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLOSAllocFreeAndFull(t *testing.T) {
	cfg := smallConfig()
	cfg.LOS = 16 * PageSize
	h := newHeap(t, cfg)
	a, err := h.AllocLOS(3*PageSize, 10)
	require.NoError(t, err)
	b, err := h.AllocLOS(5*PageSize, 10)
	require.NoError(t, err)
	c, err := h.AllocLOS(8*PageSize, 10)
	require.NoError(t, err)
	for _, o := range []Addr{a, b, c} {
		assert.Equal(t, SpaceLOS, h.SpaceOf(o))
		assert.Zero(t, o%PageSize, "LOS objects are page-aligned")
	}
	_, err = h.AllocLOS(MaxSmallObject+8, 0)
	require.ErrorIs(t, err, ErrLOSFull)
	assert.Contains(t, err.Error(), "LOS")
	assert.Equal(t, 3, h.LOSObjects())
	h.WriteRoot(0, b)
	_, err = h.MajorCollect()
	require.NoError(t, err)
	used, _ := h.LOSUsage()
	assert.Equal(t, 5, used)
	assert.Equal(t, Nil, h.LOSObject(0), "freed objects leave holes")
	// The 3 free pages before b and 8 after are separate runs: 9 pages fail, 8 fit.
	_, err = h.AllocLOS(9*PageSize, 0)
	require.ErrorIs(t, err, ErrLOSFull)
	d, err := h.AllocLOS(8*PageSize, 0)
	require.NoError(t, err)
	assert.Equal(t, c, d, "first fit reuses the freed run")
	assert.Equal(t, 3, h.LOSObjects(), "holes are reused")
	h.WriteRoot(0, Nil)
	_, err = h.MajorCollect()
	require.NoError(t, err)
	e, err := h.AllocLOS(16*PageSize, 0)
	require.NoError(t, err, "free runs coalesce")
	assert.Equal(t, a, e)
}
