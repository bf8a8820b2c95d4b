package heap

import "sync/atomic"

// Promoter is one collector worker's state in a minor collection: its
// promotion allocation buffer, its gray stack and its counters. Each worker
// uses its own Promoter; distinct Promoters may run concurrently on disjoint
// scan ranges. A Promoter is built once and reused across collections, so
// promotion does not allocate on the Go heap per object (the gray stack
// keeps its capacity).
type Promoter struct {
	h    *Heap
	buf  allocBuffer
	gray []Addr
	err  error

	objects, bytes int64
}

// NewPromoter returns a Promoter for this heap.
func (h *Heap) NewPromoter() *Promoter {
	return &Promoter{h: h, buf: allocBuffer{h: h}, gray: make([]Addr, 0, 1024)}
}

// VisitSlot promotes the nursery object the slot refers to, if any, and
// updates the slot to the object's new address. Copies are pushed on the
// gray stack; call Drain to scan them.
func (p *Promoter) VisitSlot(slot Addr) {
	h := p.h
	w := h.word(slot)
	if v := Addr(*w); h.InNursery(v) && p.err == nil {
		*w = uint64(p.promote(v))
	}
}

// promote returns obj's new address, copying it if no worker has yet. The
// copy's slot is allocated first; a compare-and-swap of obj's forwarding
// word from 0 decides which worker's copy wins; the losers give their slot
// back and use the winner's address. The winner copies the bytes after the
// CAS; nobody else reads the copy during this collection.
func (p *Promoter) promote(obj Addr) Addr {
	h := p.h
	fw := h.word(obj)
	if fwd := Addr(atomic.LoadUint64(fw)); fwd != Nil {
		return fwd
	}
	size, nrefs := h.header(obj)
	class := int(classOfSize[(size+7)/8])
	dst, err := p.buf.alloc(class, nrefs > 0)
	if err != nil {
		p.err = err
		return obj
	}
	if !atomic.CompareAndSwapUint64(fw, 0, uint64(dst)) {
		p.buf.unalloc(dst)
		return Addr(atomic.LoadUint64(fw))
	}
	copy(h.bytes(dst+8, size-8), h.bytes(obj+8, size-8))
	*h.word(dst) = 0
	p.objects++
	p.bytes += int64(size)
	if nrefs > 0 {
		p.gray = append(p.gray, dst)
	}
	return dst
}

// Drain scans the promoted objects on the gray stack, promoting what they
// refer to in the nursery, until the stack is empty.
func (p *Promoter) Drain() {
	h := p.h
	for len(p.gray) > 0 && p.err == nil {
		obj := p.gray[len(p.gray)-1]
		p.gray = p.gray[:len(p.gray)-1]
		_, nrefs := h.header(obj)
		for s := 0; s < nrefs; s++ {
			p.VisitSlot(SlotAddr(obj, s))
		}
	}
	p.gray = p.gray[:0]
}

// Err returns the first error promotion met (a full major heap), or nil.
// After an error the Promoter stops promoting and the heap is no longer
// consistent: the collection has failed.
func (p *Promoter) Err() error { return p.err }

// Release returns the Promoter's allocation blocks to the shared lists (one
// lock acquisition) so that the blocks can be card-scanned and swept; call
// it for every Promoter after the collection's workers are done and before
// ResetNursery.
func (p *Promoter) Release() { p.buf.release() }

// TakeCounts returns the objects and bytes promoted since the last call and
// resets the counts.
func (p *Promoter) TakeCounts() (objects, bytes int64) {
	objects, bytes = p.objects, p.bytes
	p.objects, p.bytes = 0, 0
	return objects, bytes
}
