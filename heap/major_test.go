package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMajorFreeListsAndFullHeap(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 4 * BlockSize
	h := newHeap(t, cfg)
	_, stride, _ := SizeClass(1000)
	per := BlockSize / stride
	var objs []Addr
	for {
		a, err := h.AllocMajor(1000, 1)
		if err != nil {
			require.ErrorIs(t, err, ErrMajorHeapFull)
			assert.Contains(t, err.Error(), "MajorHeap")
			break
		}
		objs = append(objs, a)
	}
	require.Len(t, objs, 4*per)
	used, total := h.MajorUsage()
	assert.Equal(t, [2]int{4, 4}, [2]int{used, total})
	// Keep every other object of the first block alive and one object in
	// the second; the rest is garbage.
	for i := 0; i < per; i += 2 {
		h.WriteRoot(i, objs[i])
	}
	h.WriteRoot(per, objs[per])
	st, err := h.MajorCollect()
	require.NoError(t, err)
	live := int64((per+1)/2 + 1)
	assert.Equal(t, live, st.LiveObjects)
	assert.Equal(t, int64(len(objs))-live, st.FreedObjects)
	assert.Equal(t, 2, st.UsedBlocks, "fully dead blocks are empty again")
	// Freed slots are reused: 2 empty blocks plus the holes in the first two.
	n := 0
	for ; ; n++ {
		if _, err := h.AllocMajor(1000, 0); err != nil {
			require.ErrorIs(t, err, ErrMajorHeapFull)
			break
		}
	}
	assert.Equal(t, len(objs)-int(live), n)
	_, err = h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err)
}

// TestBlockClassOfANeverUsedBlock: a block the heap has not used yet is
// empty, -1, not the smallest class.
func TestBlockClassOfANeverUsedBlock(t *testing.T) {
	h := newHeap(t, smallConfig())
	_, blocks := h.MajorUsage()
	require.Equal(t, -1, h.BlockClass(blocks-1))
}
