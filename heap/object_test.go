package heap

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllocationShapesAreChecked(t *testing.T) {
	h := newHeap(t, smallConfig())
	_, err := h.AllocMajor(8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(32, 3)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(16, -1)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(MaxSmallObject+8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocLOS(MaxSmallObject, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocNursery(MaxSmallObject+8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	// Slot counts whose byte size overflows an int must be refused, not
	// wrap negative and pass the size check.
	for _, nrefs := range []int{1<<60 + 1<<29, 1<<61 + 1, math.MaxInt} {
		_, err = h.AllocMajor(24, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
		_, err = h.AllocLOS(1<<20, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
		_, err = h.AllocNursery(24, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
	}
	_, err = h.AllocLOS(math.MaxInt, 0)
	assert.ErrorIs(t, err, ErrBadObject)
}

func TestObjectLayoutAndPayload(t *testing.T) {
	h := newHeap(t, smallConfig())
	a, err := h.AllocMajor(ObjectSize(3, 20), 3)
	require.NoError(t, err)
	assert.Equal(t, SpaceMajor, h.SpaceOf(a))
	assert.Equal(t, 64, h.Size(a))
	assert.Equal(t, 3, h.NumRefs(a))
	assert.Len(t, h.Payload(a), 24)
	for i := range 3 {
		assert.Equal(t, Nil, h.Ref(a, i))
	}
	b, err := h.AllocMajor(64, 3)
	require.NoError(t, err)
	assert.NotEqual(t, h.Payload(a), h.Payload(b), "payloads differ per object")
	h.WriteRef(a, 1, b)
	assert.Equal(t, b, h.Ref(a, 1))
	assert.False(t, h.CardMarked(SlotAddr(a, 1)), "old→old stores mark no card")
}
