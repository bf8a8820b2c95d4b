package heap

import "fmt"

// Header word 0 states (see the package comment).
const markBit = 1

// ObjectSize is the size in bytes of an object with nrefs reference slots
// and payload payload bytes, rounded up to a multiple of 8.
func ObjectSize(nrefs, payload int) int {
	return HeaderSize + nrefs*SlotSize + (payload+7)&^7
}

// maxObjectSize bounds an object's size, so that it fits the header's
// 32-bit size field and size arithmetic cannot overflow an int.
const maxObjectSize = 1 << 31

// checkShape validates a requested object and returns its rounded size.
// Both values are bounded before any arithmetic: a huge nrefs would
// otherwise wrap nrefs*SlotSize negative and pass the size check.
func checkShape(size, nrefs int) (int, error) {
	switch {
	case nrefs < 0 || nrefs > maxObjectSize/SlotSize:
		return 0, fmt.Errorf("%w: %d reference slots", ErrBadObject, nrefs)
	case size > maxObjectSize:
		return 0, fmt.Errorf("%w: %d bytes is larger than 2 GiB", ErrBadObject, size)
	}
	size = (size + 7) &^ 7
	if size < HeaderSize+nrefs*SlotSize {
		return 0, fmt.Errorf("%w: %d bytes cannot hold a header and %d reference slots", ErrBadObject, size, nrefs)
	}
	return size, nil
}

func packHeader(size, nrefs int) uint64 { return uint64(uint32(size)) | uint64(nrefs)<<32 }

func (h *Heap) header(obj Addr) (size, nrefs int) {
	w := *h.word(obj + 8)
	return int(uint32(w)), int(w >> 32)
}

// Size returns the size in bytes of the object at obj.
func (h *Heap) Size(obj Addr) int { s, _ := h.header(obj); return s }

// NumRefs returns the number of reference slots of the object at obj.
func (h *Heap) NumRefs(obj Addr) int { _, n := h.header(obj); return n }

// SlotAddr returns the address of reference slot i of obj.
func SlotAddr(obj Addr, i int) Addr { return obj + HeaderSize + Addr(i)*SlotSize }

// Ref returns reference slot i of obj.
func (h *Heap) Ref(obj Addr, i int) Addr { return Addr(*h.word(SlotAddr(obj, i))) }

// WriteRef stores val into reference slot i of obj through the write
// barrier: if val is a nursery address and obj is not in the nursery, the
// slot's card is marked. It is the mutator's only way to store a reference.
func (h *Heap) WriteRef(obj Addr, i int, val Addr) {
	h.storeSlot(SlotAddr(obj, i), val)
}

func (h *Heap) storeSlot(slot, val Addr) {
	*h.word(slot) = uint64(val)
	if h.InNursery(val) && !h.InNursery(slot) {
		h.markCard(slot)
	}
}

// Payload returns the payload bytes of obj. The slice aliases heap memory:
// it is valid until the object moves or the heap is closed.
func (h *Heap) Payload(obj Addr) []byte {
	size, nrefs := h.header(obj)
	off := HeaderSize + nrefs*SlotSize
	return h.bytes(obj+Addr(off), size-off)
}

// initObject writes a fresh object's header, nil slots and seeded payload.
func (h *Heap) initObject(obj Addr, size, nrefs int) {
	*h.word(obj) = 0
	*h.word(obj + 8) = packHeader(size, nrefs)
	slots := obj + HeaderSize
	clear(h.bytes(slots, nrefs*SlotSize))
	h.allocSeq++
	fillPayload(h, slots+Addr(nrefs*SlotSize), size-HeaderSize-nrefs*SlotSize, h.cfg.Seed, h.allocSeq)
}

// fillPayload writes n bytes (a multiple of 8) derived from seed and seq.
func fillPayload(h *Heap, a Addr, n int, seed, seq uint64) {
	x := mix64(seed^seq*0x9e3779b97f4a7c15) | 1 // xorshift64 state, never 0
	for off := 0; off < n; off += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		*h.word(a + Addr(off)) = x
	}
}

// mix64 is splitmix64's finalizer.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
