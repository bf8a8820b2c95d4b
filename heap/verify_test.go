package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtHeap returns a populated heap with one minor collection behind it.
func builtHeap(t *testing.T) (*Heap, VerifyResult) {
	h := newHeap(t, smallConfig())
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.2, LOSFill: 0.2, Seed: 5}))
	require.NoError(t, mutate(h, NewRand(5), 5))
	minorCollect(t, h, []*Promoter{h.NewPromoter()})
	res, err := h.Verify(VerifyOptions{AfterMinor: true, FullHeap: true})
	require.NoError(t, err)
	require.Positive(t, res.Objects)
	return h, res
}

// someOld returns a reachable old object with at least one slot.
func someOld(t *testing.T, h *Heap) Addr {
	for i := range h.NumRoots() {
		if o := h.Root(i); o != Nil && h.SpaceOf(o) == SpaceMajor && h.NumRefs(o) > 0 {
			return o
		}
	}
	t.Fatal("no reachable major object with slots")
	return Nil
}

func TestVerifierCatchesDanglingReference(t *testing.T) {
	h, _ := builtHeap(t)
	o := someOld(t, h)
	for _, bad := range []Addr{o + 8, 3, h.RootAddr(0)} {
		saved := h.Ref(o, 0)
		h.WriteRef(o, 0, bad)
		_, err := h.Verify(VerifyOptions{})
		require.ErrorIs(t, err, ErrDanglingRef, "reference to %#x", bad)
		require.ErrorIs(t, err, ErrVerify)
		h.WriteRef(o, 0, saved)
	}
	// A freed slot is no object either.
	lo, _ := h.Bounds(SpaceMajor)
	garbage, err := h.AllocMajor(32, 0)
	require.NoError(t, err)
	_, err = h.MajorCollect() // garbage is unreachable: freed
	require.NoError(t, err)
	h.WriteRef(o, 0, garbage)
	_, err = h.Verify(VerifyOptions{})
	require.ErrorIs(t, err, ErrDanglingRef)
	_ = lo
}

func TestVerifierCatchesLeftoverOldToNursery(t *testing.T) {
	h, _ := builtHeap(t)
	o := someOld(t, h)
	young, err := h.AllocNursery(32, 0)
	require.NoError(t, err)
	h.WriteRef(o, 0, young)
	_, err = h.Verify(VerifyOptions{})
	require.NoError(t, err, "between collections old→nursery references are legal")
	_, err = h.Verify(VerifyOptions{AfterMinor: true})
	require.ErrorIs(t, err, ErrOldToNursery)

	// An unreachable old object with a stale nursery reference is found by
	// the full-heap walk only.
	h2, _ := builtHeap(t)
	dead, err := h2.AllocMajor(32, 1)
	require.NoError(t, err)
	young2, err := h2.AllocNursery(32, 0)
	require.NoError(t, err)
	h2.WriteRef(dead, 0, young2)
	_, err = h2.Verify(VerifyOptions{AfterMinor: true})
	require.NoError(t, err)
	_, err = h2.Verify(VerifyOptions{AfterMinor: true, FullHeap: true})
	require.ErrorIs(t, err, ErrOldToNursery)
}

func TestVerifierCatchesChangedPayloadByte(t *testing.T) {
	h, res := builtHeap(t)
	o := someOld(t, h)
	p := h.Payload(o)
	require.NotEmpty(t, p)
	p[len(p)/2] ^= 0x40
	got, err := h.Verify(VerifyOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, res.Checksum, got.Checksum, "a changed payload byte changes the checksum")
	p[len(p)/2] ^= 0x40
	got, err = h.Verify(VerifyOptions{})
	require.NoError(t, err)
	assert.Equal(t, res, got)
}

func TestVerifierChecksumSeesStructure(t *testing.T) {
	h, res := builtHeap(t)
	o := someOld(t, h)
	other := someOtherOld(h, o)
	h.WriteRef(o, 0, other)
	got, err := h.Verify(VerifyOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, res.Checksum, got.Checksum, "a changed reference changes the checksum")
}

func someOtherOld(h *Heap, not Addr) Addr {
	for i := h.NumRoots() - 1; i >= 0; i-- {
		if o := h.Root(i); o != Nil && o != not && o != h.Ref(not, 0) {
			return o
		}
	}
	return Nil
}

func TestVerifierCatchesStaleMarkAndBadHeader(t *testing.T) {
	h, _ := builtHeap(t)
	o := someOld(t, h)
	*h.word(o) = markBit
	_, err := h.Verify(VerifyOptions{})
	require.ErrorIs(t, err, ErrBadHeader)
	*h.word(o) = 0
	size, nrefs := h.header(o)
	*h.word(o + 8) = packHeader(size, size) // more slots than bytes
	_, err = h.Verify(VerifyOptions{})
	require.ErrorIs(t, err, ErrVerify)
	*h.word(o + 8) = packHeader(size, nrefs)
	_, err = h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err, "the verifier leaves no marks behind")
}

// TestVerifierCatchesAStaleForwardingWord: an object whose word 0 still
// holds a forwarding address fails verification as a bad header, however
// late the traversal reaches it. A forwarding address below twice the
// objects visited so far used to pass for a visit mark, and the object
// behind it, here with a dangling slot, went unchecked.
func TestVerifierCatchesAStaleForwardingWord(t *testing.T) {
	h := newHeap(t, Config{MajorHeap: 64 << 20, LOS: 1 << 20, Nursery: MinNursery, Roots: 64, Seed: 3})
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.6, Seed: 5}))
	order := reachableInVisitOrder(h)
	var last Addr // the last object with a slot that the traversal reaches
	for _, o := range order {
		if h.NumRefs(o) > 0 {
			last = o
		}
	}
	require.NotEqual(t, Nil, last)
	base, _ := h.Bounds(SpaceMajor)
	require.Less(t, uint64(base), 2*uint64(len(order)), "the forwarding address must be small enough to pass for a visit mark")
	*h.word(last) = uint64(base)
	h.WriteRef(last, 0, base+8) // not an object start
	_, err := h.Verify(VerifyOptions{})
	require.ErrorIs(t, err, ErrBadHeader)
}

// reachableInVisitOrder lists the objects reachable from the roots
// breadth first, as the verifier visits them.
func reachableInVisitOrder(h *Heap) []Addr {
	seen := map[Addr]bool{}
	var order []Addr
	add := func(r Addr) {
		if r != Nil && !seen[r] {
			seen[r] = true
			order = append(order, r)
		}
	}
	for i := range h.NumRoots() {
		add(h.Root(i))
	}
	for k := 0; k < len(order); k++ {
		for s := range h.NumRefs(order[k]) {
			add(h.Ref(order[k], s))
		}
	}
	return order
}

// TestVerifierCallsAMissedCardOldToNursery: a store whose card the minor
// collection never saw leaves an old object pointing into the reset
// nursery, which is ErrOldToNursery, not a dangling reference.
func TestVerifierCallsAMissedCardOldToNursery(t *testing.T) {
	h, _ := builtHeap(t)
	o := someOld(t, h)
	young, err := h.AllocNursery(32, 0)
	require.NoError(t, err)
	*h.word(SlotAddr(o, 0)) = uint64(young) // the store, without its card
	minorCollect(t, h, []*Promoter{h.NewPromoter()})
	_, err = h.Verify(VerifyOptions{AfterMinor: true})
	require.ErrorIs(t, err, ErrOldToNursery)
}
