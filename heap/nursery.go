package heap

import "fmt"

// nurseryState is the bump allocator and an object-start bitmap (one bit
// per 8 bytes) that lets the verifier tell object starts in O(1).
type nurseryState struct {
	bump, limit Addr
	starts      []uint64
}

func (n *nurseryState) init(h *Heap) {
	n.bump, n.limit = h.Bounds(SpaceNursery)
	n.bump = h.nurseryBase
	n.starts = make([]uint64, h.cfg.Nursery/8/64)
}

func (h *Heap) nurseryBit(a Addr) (word int, bit uint64) {
	i := (a - h.nurseryBase) / 8
	return int(i / 64), 1 << (i % 64)
}

// AllocNursery bump-allocates an object of size bytes (≤ MaxSmallObject, so
// that it can be promoted) with nrefs nil reference slots and a seeded
// payload. It returns ErrNurseryFull when the object does not fit: time for
// a minor collection.
func (h *Heap) AllocNursery(size, nrefs int) (Addr, error) {
	size, err := checkShape(size, nrefs)
	if err != nil {
		return Nil, err
	}
	if size > MaxSmallObject {
		return Nil, fmt.Errorf("%w: %d bytes is a large object (> %d); use AllocLOS", ErrBadObject, size, MaxSmallObject)
	}
	n := &h.nursery
	if n.limit-n.bump < Addr(size) {
		return Nil, ErrNurseryFull
	}
	a := n.bump
	n.bump += Addr(size)
	w, bit := h.nurseryBit(a)
	n.starts[w] |= bit
	h.initObject(a, size, nrefs)
	return a, nil
}

// NurseryUsed is the number of nursery bytes allocated since the last reset.
func (h *Heap) NurseryUsed() int64 { return int64(h.nursery.bump - h.nurseryBase) }

// ResetNursery ends a minor collection: every survivor has been promoted
// and every Promoter released, so the nursery is emptied, and major blocks
// that were passed over while being card-scanned become available again.
func (h *Heap) ResetNursery() {
	n := &h.nursery
	used := (n.bump - h.nurseryBase + 8*64 - 1) / (8 * 64)
	clear(n.starts[:used])
	n.bump = h.nurseryBase
	m := &h.major
	m.mu.Lock()
	for {
		i, ok := m.skipped.pop(m)
		if !ok {
			break
		}
		m.partial[m.blocks[i].class].push(m, i)
	}
	h.minorPending = false
	m.mu.Unlock()
}
