package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTooLargeForTheMachineNamesTheSettings(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 1 << 44 // 16 TiB: valid, but more than this machine's memory
	require.NoError(t, cfg.Validate())
	_, err := New(cfg)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "major_heap = 16TiB, want at most ")
	assert.Contains(t, err.Error(), "(this machine's available memory)")
}

func TestSpaceOfMapsEveryRegion(t *testing.T) {
	h := newHeap(t, smallConfig())
	for _, s := range []Space{SpaceRoots, SpaceNursery, SpaceMajor, SpaceLOS} {
		lo, hi := h.Bounds(s)
		require.Less(t, lo, hi)
		assert.Equal(t, s, h.SpaceOf(lo), "first byte of %v", s)
		assert.Equal(t, s, h.SpaceOf(hi-1), "last byte of %v", s)
		assert.Equal(t, s, h.SpaceOf(lo+(hi-lo)/2), "middle of %v", s)
		assert.Equal(t, s == SpaceNursery, h.InNursery(lo))
	}
	assert.Equal(t, SpaceNone, h.SpaceOf(Nil))
	assert.Equal(t, SpaceNone, h.SpaceOf(8))
	_, end := h.Bounds(SpaceLOS)
	assert.Equal(t, SpaceNone, h.SpaceOf(end))
	_, majorEnd := h.Bounds(SpaceMajor)
	losLo, _ := h.Bounds(SpaceLOS)
	assert.Equal(t, majorEnd, losLo)
	majorLo, _ := h.Bounds(SpaceMajor)
	assert.Zero(t, majorLo%BlockSize, "blocks are block-aligned")
	assert.Zero(t, losLo%PageSize)
}

func TestCloseReturnsMemory(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 256 << 20
	h, err := New(cfg)
	require.NoError(t, err)
	before := rss(t)
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.5, LOSFill: 0.5, Seed: 1}))
	touched := rss(t) - before
	require.Greater(t, touched, int64(100<<20), "populating 128 MiB must touch memory")
	require.NoError(t, h.Close())
	after := rss(t)
	assert.Less(t, after-before, touched/10, "RSS must drop after Close: before %d, filled +%d, after +%d", before, touched, after-before)
	require.NoError(t, h.Close(), "Close is idempotent")
	_, err = h.Verify(VerifyOptions{})
	assert.ErrorIs(t, err, ErrClosed)
}
