package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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

// TestWriteBarrierMarksEveryNurseryStore builds random object graphs
// through the write barrier: after any sequence of stores, every old or
// root slot holding a nursery reference has its card marked, and
// PrepareCards moves exactly those marks (and no others) into the shadow.
func TestWriteBarrierMarksEveryNurseryStore(t *testing.T) {
	// The LOS holds the largest draw: 20 objects of at most 10 pages each.
	cfg := Config{MajorHeap: 64 * BlockSize, LOS: 256 * PageSize, Nursery: MinNursery, Roots: 128, Seed: 1}
	rapid.Check(t, func(t *rapid.T) {
		h, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		var old, young []Addr
		for range rapid.IntRange(1, 20).Draw(t, "old") {
			var a Addr
			if rapid.Bool().Draw(t, "large") {
				n := rapid.IntRange(1, 2000).Draw(t, "lrefs")
				payload := max(0, MaxSmallObject+8-ObjectSize(n, 0)) + 8*rapid.IntRange(0, 3000).Draw(t, "lpayload")
				a, err = h.AllocLOS(ObjectSize(n, payload), n)
			} else {
				n := rapid.IntRange(1, 40).Draw(t, "refs")
				a, err = h.AllocMajor(ObjectSize(n, rapid.IntRange(0, 2000).Draw(t, "payload")), n)
			}
			if err != nil {
				t.Fatal(err)
			}
			old = append(old, a)
		}
		for range rapid.IntRange(1, 20).Draw(t, "young") {
			n := rapid.IntRange(0, 8).Draw(t, "yrefs")
			a, err := h.AllocNursery(ObjectSize(n, 8), n)
			if err != nil {
				t.Fatal(err)
			}
			young = append(young, a)
		}
		all := append(append([]Addr{Nil}, old...), young...)
		nurseryStores := map[Addr]bool{}
		for range rapid.IntRange(0, 200).Draw(t, "stores") {
			val := all[rapid.IntRange(0, len(all)-1).Draw(t, "val")]
			var slot Addr
			if rapid.IntRange(0, 4).Draw(t, "where") == 0 {
				i := rapid.IntRange(0, h.NumRoots()-1).Draw(t, "root")
				h.WriteRoot(i, val)
				slot = h.RootAddr(i)
			} else {
				objs := append(old, young...)
				o := objs[rapid.IntRange(0, len(objs)-1).Draw(t, "obj")]
				if h.NumRefs(o) == 0 {
					continue
				}
				i := rapid.IntRange(0, h.NumRefs(o)-1).Draw(t, "slot")
				h.WriteRef(o, i, val)
				slot = SlotAddr(o, i)
			}
			if h.InNursery(val) && !h.InNursery(slot) {
				nurseryStores[slot] = true
			}
		}
		for slot := range nurseryStores {
			if !h.CardMarked(slot) {
				t.Fatalf("slot %#x received a nursery reference but its card is clear", slot)
			}
		}
		h.PrepareCards()
		var r recorder
		h.ScanRootCards(&r)
		h.ScanBlockCards(0, h.ScanBlocks(), &r)
		h.ScanLOSCards(0, h.ScanLOSObjects(), &r)
		visited := map[Addr]bool{}
		for _, s := range r.slots {
			if visited[s] {
				t.Fatalf("slot %#x visited twice", s)
			}
			visited[s] = true
		}
		for slot := range nurseryStores {
			if !visited[slot] {
				t.Fatalf("slot %#x with a nursery store not visited by the card scan", slot)
			}
			if h.CardMarked(slot) {
				t.Fatalf("card of %#x not cleared by PrepareCards", slot)
			}
		}
	})
}

func TestPopulateSampleIsReachableAndUniform(t *testing.T) {
	h := newHeap(t, smallConfig())
	sample := make([]Addr, 200)
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.3, LOSFill: 0.3, Seed: 2, Sample: sample}))
	res, err := h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err)
	// Every sampled object is reachable: a major collection keeps every one.
	_, err = h.MajorCollect()
	require.NoError(t, err)
	distinct := map[Addr]bool{}
	for _, a := range sample {
		require.True(t, h.IsObject(a), "sampled %#x survives a major collection", a)
		require.Positive(t, h.NumRefs(a))
		distinct[a] = true
	}
	assert.Len(t, distinct, len(sample))
	// Not just the first objects built: some sampled objects come from the
	// second half of the major heap's blocks.
	late := 0
	used, _ := h.MajorUsage()
	for _, a := range sample {
		if h.SpaceOf(a) == SpaceMajor && h.BlockOf(a) > used/2 {
			late++
		}
	}
	assert.Positive(t, late)
	again, err := h.Verify(VerifyOptions{})
	require.NoError(t, err)
	assert.Equal(t, res, again)
}
