package heap

import "unsafe"

// SlotVisitor receives the address of every reference slot a scanning
// helper finds under a marked card. A Promoter is one.
type SlotVisitor interface {
	VisitSlot(slot Addr)
}

func (h *Heap) cardByte(a Addr) *byte   { return (*byte)(unsafe.Add(h.cardp, a/CardSize)) }
func (h *Heap) shadowByte(a Addr) *byte { return (*byte)(unsafe.Add(h.shadp, a/CardSize)) }

// markCard marks the card of the slot at a (the write barrier's store).
func (h *Heap) markCard(a Addr) { *h.cardByte(a) = 1 }

// CardMarked reports whether the live card covering a is marked.
func (h *Heap) CardMarked(a Addr) bool { return *h.cardByte(a) != 0 }

// ShadowMarked reports whether the shadow card covering a is marked, that
// is, whether the card was marked when PrepareCards last ran. PrepareCards
// copies only the major blocks that have marks, so a block's shadow can
// hold an earlier collection's; only a block dirty in this epoch's counts.
func (h *Heap) ShadowMarked(a Addr) bool {
	if a >= h.majorBase && a < h.losBase && h.major.dirty[(a-h.majorBase)/BlockSize] != h.epoch {
		return false
	}
	return *h.shadowByte(a) != 0
}

// cardWords returns the 4 words of card bytes of major block i in the table at p.
func (h *Heap) blockCardWords(p unsafe.Pointer, i int) *[CardsPerBlock / 8]uint64 {
	a := h.majorBase + Addr(i)*BlockSize
	return (*[CardsPerBlock / 8]uint64)(unsafe.Add(p, a/CardSize))
}

// PrepareCards starts a minor collection: it copies the cards of the roots,
// the major heap and the LOS to the shadow table and clears them, and
// snapshots how many blocks and LOS objects the scan jobs cover (ScanBlocks,
// ScanLOSObjects). Blocks with marked cards are remembered so that no
// promotion buffer takes them during this collection.
func (h *Heap) PrepareCards() {
	h.epoch++
	h.minorPending = true
	h.copyClearCards(h.Bounds(SpaceRoots))
	for i := 0; i < h.major.highWater; i++ {
		live := h.blockCardWords(h.cardp, i)
		if live[0]|live[1]|live[2]|live[3] == 0 {
			continue
		}
		*h.blockCardWords(h.shadp, i) = *live
		*live = [CardsPerBlock / 8]uint64{}
		h.major.dirty[i] = h.epoch
	}
	h.copyClearCards(h.losBase, h.losBase+Addr(h.los.highWater)*PageSize)
	h.scanBlocks = h.major.highWater
	h.scanLOS = len(h.los.objs)
}

func (h *Heap) copyClearCards(lo, hi Addr) {
	if hi <= lo {
		return
	}
	c0, c1 := int(lo/CardSize), int((hi-1)/CardSize)+1
	copy(h.shadow.mem[c0:c1], h.cards.mem[c0:c1])
	clear(h.cards.mem[c0:c1])
}

// ScanBlocks is the number of major blocks the current collection's block
// jobs cover: split [0, ScanBlocks()) among them.
func (h *Heap) ScanBlocks() int { return h.scanBlocks }

// ScanLOSObjects is the length of the LOS object array the current
// collection's LOS jobs cover: split [0, ScanLOSObjects()) among them.
func (h *Heap) ScanLOSObjects() int { return h.scanLOS }

// ScanBlockCards visits the reference slots under marked shadow cards in
// major blocks [lo, hi) and returns how many marked cards it scanned. Blocks
// without references or without marked cards are skipped; objects of a
// class no larger than a card are scanned whole (once, even when they span
// two marked cards), larger ones only in their slots under marked cards.
func (h *Heap) ScanBlockCards(lo, hi int, v SlotVisitor) (cards int) {
	for i := lo; i < hi; i++ {
		if h.major.dirty[i] != h.epoch {
			continue
		}
		b := &h.major.blocks[i]
		if !b.hasRefs || b.class < 0 {
			continue
		}
		cards += h.scanBlock(i, b, v)
	}
	return cards
}

func (h *Heap) scanBlock(i int, b *block, v SlotVisitor) (cards int) {
	start := h.majorBase + Addr(i)*BlockSize
	stride := int(sizeClasses[b.class])
	n := int(b.bump)
	shadow := unsafe.Slice((*byte)(unsafe.Add(h.shadp, start/CardSize)), CardsPerBlock)
	if stride > CardSize {
		for _, c := range shadow {
			if c != 0 {
				cards++
			}
		}
		for idx := 0; idx < n; idx++ {
			obj := start + Addr(idx*stride)
			if _, nrefs := h.header(obj); nrefs > 0 {
				h.scanSlotRange(SlotAddr(obj, 0), SlotAddr(obj, nrefs), v)
			}
		}
		return cards
	}
	front := 0 // objects below front were scanned already
	for k, c := range shadow {
		if c == 0 {
			continue
		}
		cards++
		first := max(k*CardSize/stride, front)
		last := min(((k+1)*CardSize-1)/stride, n-1)
		for idx := first; idx <= last; idx++ {
			h.scanWhole(start+Addr(idx*stride), v)
		}
		front = last + 1
	}
	return cards
}

// scanWhole visits every slot of an allocated object (free slots have a zero header word).
func (h *Heap) scanWhole(obj Addr, v SlotVisitor) {
	_, nrefs := h.header(obj)
	for s := 0; s < nrefs; s++ {
		v.VisitSlot(SlotAddr(obj, s))
	}
}

// scanSlotRange visits the slots in [lo, hi) whose shadow card is marked
// and returns the number of marked cards it met.
func (h *Heap) scanSlotRange(lo, hi Addr, v SlotVisitor) (cards int) {
	for c := lo / CardSize; c*CardSize < hi; c++ {
		// Skip eight clean cards at a time.
		for c%8 == 0 && (c+8)*CardSize <= hi && *(*uint64)(unsafe.Add(h.shadp, c)) == 0 {
			c += 8
		}
		if c*CardSize >= hi {
			break
		}
		if *(*byte)(unsafe.Add(h.shadp, c)) == 0 {
			continue
		}
		cards++
		for s := max(lo, c*CardSize); s < min(hi, (c+1)*CardSize); s += SlotSize {
			v.VisitSlot(s)
		}
	}
	return cards
}

// ScanLOSCards visits the reference slots under marked shadow cards of the
// LOS objects at array indices [lo, hi) and returns how many marked cards it
// scanned. Only slots under marked cards are visited (large objects are
// arrays, as in SGen's card scanning of large arrays).
func (h *Heap) ScanLOSCards(lo, hi int, v SlotVisitor) (cards int) {
	for j := lo; j < hi; j++ {
		obj := h.los.objs[j].addr
		if obj == Nil {
			continue
		}
		if _, nrefs := h.header(obj); nrefs > 0 {
			cards += h.scanSlotRange(SlotAddr(obj, 0), SlotAddr(obj, nrefs), v)
		}
	}
	return cards
}

// ScanRootCards visits the root slots under marked shadow cards (SGen's
// "scan wbroots" job) and returns how many marked cards it scanned.
func (h *Heap) ScanRootCards(v SlotVisitor) (cards int) {
	lo, hi := h.Bounds(SpaceRoots)
	return h.scanSlotRange(lo, hi, v)
}
