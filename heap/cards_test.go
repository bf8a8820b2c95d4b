package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// recorder is a SlotVisitor that records the slots it is given.
type recorder struct{ slots []Addr }

func (r *recorder) VisitSlot(s Addr) { r.slots = append(r.slots, s) }

func TestCardsShadowCopyAndClear(t *testing.T) {
	h := newHeap(t, smallConfig())
	old, err := h.AllocMajor(64, 4)
	require.NoError(t, err)
	young, err := h.AllocNursery(32, 0)
	require.NoError(t, err)
	h.WriteRef(old, 2, young)
	h.WriteRoot(5, young)
	assert.True(t, h.CardMarked(SlotAddr(old, 2)))
	assert.True(t, h.CardMarked(h.RootAddr(5)))
	nurseryObj, err := h.AllocNursery(32, 1)
	require.NoError(t, err)
	h.WriteRef(nurseryObj, 0, young)
	assert.False(t, h.CardMarked(SlotAddr(nurseryObj, 0)), "nursery→nursery stores mark no card")

	h.PrepareCards()
	assert.False(t, h.CardMarked(SlotAddr(old, 2)), "live cards are cleared")
	assert.False(t, h.CardMarked(h.RootAddr(5)))
	assert.True(t, h.ShadowMarked(SlotAddr(old, 2)), "the shadow holds the marks")
	assert.True(t, h.ShadowMarked(h.RootAddr(5)))
	var r recorder
	assert.Equal(t, 1, h.ScanBlockCards(0, h.ScanBlocks(), &r))
	assert.Equal(t, []Addr{SlotAddr(old, 0), SlotAddr(old, 1), SlotAddr(old, 2), SlotAddr(old, 3)}, r.slots,
		"small objects under a marked card are scanned whole")
	r.slots = nil
	assert.Equal(t, 1, h.ScanRootCards(&r))
	assert.Len(t, r.slots, CardSize/SlotSize, "every root under the marked card")
	assert.Contains(t, r.slots, h.RootAddr(5))
}

func TestScanBlockCardsVisitsKnownSlots(t *testing.T) {
	h := newHeap(t, smallConfig())
	// Class 48: objects straddle card boundaries. Fill one block.
	_, stride, _ := SizeClass(48)
	per := BlockSize / stride
	objs := make([]Addr, per)
	for i := range objs {
		var err error
		objs[i], err = h.AllocMajor(48, 4)
		require.NoError(t, err)
	}
	// A 2000-byte class: objects span several cards.
	big := make([]Addr, 4)
	for i := range big {
		var err error
		big[i], err = h.AllocMajor(2000, 200)
		require.NoError(t, err)
	}
	// A block with no references at all.
	plain, err := h.AllocMajor(100, 0)
	require.NoError(t, err)
	young, err := h.AllocNursery(16, 0)
	require.NoError(t, err)

	straddler := -1
	for i, o := range objs {
		if o/CardSize != (o+Addr(stride)-1)/CardSize && SlotAddr(o, 3)/CardSize != o/CardSize {
			straddler = i
			break
		}
	}
	require.GreaterOrEqual(t, straddler, 0)
	s := objs[straddler]
	h.WriteRef(s, 3, young) // marks the card after the one s starts in
	h.WriteRef(big[1], 150, young)
	h.PrepareCards()
	_ = plain

	var r recorder
	cards := h.ScanBlockCards(0, h.ScanBlocks(), &r)
	assert.Equal(t, 2, cards)
	want := map[Addr]bool{}
	card := SlotAddr(s, 3) / CardSize
	for _, o := range objs {
		if o/CardSize <= card && (o+Addr(stride)-1)/CardSize >= card {
			for k := range 4 {
				want[SlotAddr(o, k)] = true
			}
		}
	}
	bigCard := SlotAddr(big[1], 150) / CardSize
	for k := range 200 {
		if SlotAddr(big[1], k)/CardSize == bigCard {
			want[SlotAddr(big[1], k)] = true
		}
	}
	got := map[Addr]bool{}
	for _, a := range r.slots {
		assert.False(t, got[a], "slot %#x visited twice", a)
		got[a] = true
	}
	assert.Equal(t, want, got)
	// A range that excludes the dirty blocks visits nothing.
	r.slots = nil
	b := h.BlockOf(s)
	assert.Zero(t, h.ScanBlockCards(b+1, b+1, &r))
	assert.Empty(t, r.slots)
}

func TestScanLOSCardsVisitsOnlyMarkedCards(t *testing.T) {
	h := newHeap(t, smallConfig())
	var objs []Addr
	for range 5 {
		a, err := h.AllocLOS(5*PageSize, 2000)
		require.NoError(t, err)
		objs = append(objs, a)
	}
	young, err := h.AllocNursery(16, 0)
	require.NoError(t, err)
	h.WriteRef(objs[1], 0, young)
	h.WriteRef(objs[1], 1999, young)
	h.WriteRef(objs[3], 700, young)
	h.PrepareCards()
	require.Equal(t, 5, h.ScanLOSObjects())
	var r recorder
	assert.Equal(t, 2, h.ScanLOSCards(0, 2, &r))
	slotsPerCard := CardSize / SlotSize
	assert.Len(t, r.slots, (slotsPerCard-2)+(1999-(slotsPerCard*31-2)+1),
		"the first card holds the header and 62 slots; slot 1999 is in card 31")
	assert.Contains(t, r.slots, SlotAddr(objs[1], 0))
	assert.Contains(t, r.slots, SlotAddr(objs[1], 1999))
	r.slots = nil
	assert.Equal(t, 1, h.ScanLOSCards(2, 5, &r))
	assert.Len(t, r.slots, slotsPerCard)
	assert.Contains(t, r.slots, SlotAddr(objs[3], 700))
}

// TestWriteBarrierMarksEveryNurseryStore builds random object graphs
// through the write barrier: after any sequence of stores, every old or
// root slot holding a nursery reference has its card marked, and after
// PrepareCards the card scans visit each such slot once and the live
// cards are clear. (That the shadow holds no other marks is
// TestCardsShadowCopyAndClear's and TestScanLOSCardsVisitsOnlyMarkedCards'.)
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

// TestShadowForgetsAnEarlierCollectionsMarks: PrepareCards copies only the
// blocks that have marks, so the shadow of a block dirty in the collection
// before still holds that collection's; ShadowMarked must not report it.
func TestShadowForgetsAnEarlierCollectionsMarks(t *testing.T) {
	h := newHeap(t, smallConfig())
	old, err := h.AllocMajor(64, 4)
	require.NoError(t, err)
	h.WriteRoot(0, old)
	young, err := h.AllocNursery(32, 0)
	require.NoError(t, err)
	h.WriteRef(old, 2, young)
	h.PrepareCards()
	require.True(t, h.ShadowMarked(SlotAddr(old, 2)))
	p := h.NewPromoter()
	h.ScanRootCards(p)
	h.ScanBlockCards(0, h.ScanBlocks(), p)
	p.Drain()
	p.Release()
	h.ResetNursery()

	h.PrepareCards() // no store since the last collection
	assert.False(t, h.CardMarked(SlotAddr(old, 2)))
	assert.False(t, h.ShadowMarked(SlotAddr(old, 2)), "the card was not marked when PrepareCards last ran")
	h.ResetNursery()
}
