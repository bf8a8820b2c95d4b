package heap

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// castagnoli is the CRC-32C table: hardware-accelerated for payload bytes.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Verification failures; each wraps ErrVerify.
var (
	// ErrDanglingRef: a reference does not point at a valid object start in a live space.
	ErrDanglingRef = fmt.Errorf("%w: dangling reference", ErrVerify)
	// ErrOldToNursery: after a minor collection, an old object or root still refers to the nursery.
	ErrOldToNursery = fmt.Errorf("%w: old-to-nursery reference after a minor collection", ErrVerify)
	// ErrBadHeader: a reachable object's header is inconsistent or carries a stale mark or forwarding word.
	ErrBadHeader = fmt.Errorf("%w: bad object header", ErrVerify)
)

// VerifyOptions selects the verifier's checks.
type VerifyOptions struct {
	// AfterMinor also requires that nothing refers into the nursery (right
	// after a minor collection it must be empty of survivors).
	AfterMinor bool
	// FullHeap also checks the slots of every allocated object, reachable or
	// not (card scanning reads unreachable objects too), not only the
	// reachable graph. It walks the whole used heap.
	FullHeap bool
}

// VerifyResult describes the reachable graph.
type VerifyResult struct {
	// Checksum covers every reachable object's size, slot count, payload
	// and references (as positions in a breadth-first traversal from the
	// roots in slot order), and which roots are set. It does not depend on
	// where objects are, so it is the same after any correct collection.
	Checksum uint64
	// Objects and Bytes count the reachable objects.
	Objects, Bytes int64
}

// Verify is VerifyContext that cannot be interrupted.
func (h *Heap) Verify(opt VerifyOptions) (VerifyResult, error) {
	return h.VerifyContext(context.Background(), opt)
}

// VerifyContext checks the heap: every reachable reference points at a valid
// object start in a live space and every reachable header is sane; with
// opt.AfterMinor, nothing points into the nursery; with opt.FullHeap, the
// same for every allocated object. It returns the reachable graph's checksum.
// It must not run during a collection. It uses the objects' forwarding
// words as visit marks and restores them, and keeps its queue off the Go heap.
//
// It looks at ctx after about every MiB of objects checked. If ctx ends
// first, it returns an error wrapping ctx.Err() and no checksum; the heap
// is left as it was (the visit marks are restored as on any return).
func (h *Heap) VerifyContext(ctx context.Context, opt VerifyOptions) (VerifyResult, error) {
	if err := h.usable(); err != nil {
		return VerifyResult{}, err
	}
	poll := newPoller(ctx)
	res, err := h.verifyReachable(opt, &poll)
	if err == nil && opt.FullHeap {
		err = h.verifyAll(opt, &poll)
	}
	if ctxErr := ctx.Err(); err != nil && errors.Is(err, ctxErr) {
		return VerifyResult{}, fmt.Errorf("heap verification interrupted: %w", err)
	}
	return res, err
}

// checkRef reports why a reference from slot (in holder) is invalid, or nil.
// After a minor collection any reference into the nursery is one the
// collection missed, whether or not an object starts there any more (the
// reset nursery has none): it is ErrOldToNursery, checked first.
func (h *Heap) checkRef(holder, slot, ref Addr, opt VerifyOptions) error {
	if opt.AfterMinor && h.InNursery(ref) {
		return fmt.Errorf("%w: slot %#x of %s %#x holds nursery address %#x",
			ErrOldToNursery, slot, h.SpaceOf(holder), holder, ref)
	}
	if !h.isObjectStart(ref) {
		return fmt.Errorf("%w: slot %#x of %s %#x holds %#x (%s), not an object start",
			ErrDanglingRef, slot, h.SpaceOf(holder), holder, ref, h.SpaceOf(ref))
	}
	return nil
}

// IsObject reports, in constant time, whether a is the start of an
// allocated object (in the nursery, the major heap or the LOS).
func (h *Heap) IsObject(a Addr) bool { return h.isObjectStart(a) }

// isObjectStart reports, in O(1), whether a is the start of an allocated object.
func (h *Heap) isObjectStart(a Addr) bool {
	if a%8 != 0 {
		return false
	}
	switch h.SpaceOf(a) {
	case SpaceNursery:
		w, bit := h.nurseryBit(a)
		return a < h.nursery.bump && h.nursery.starts[w]&bit != 0
	case SpaceMajor:
		i := int((a - h.majorBase) / BlockSize)
		if i >= h.major.highWater {
			return false
		}
		b := &h.major.blocks[i]
		if b.class < 0 {
			return false
		}
		off := int((a - h.majorBase) % BlockSize)
		stride := int(sizeClasses[b.class])
		return off%stride == 0 && off/stride < int(b.bump) && *h.word(a + 8) != 0
	case SpaceLOS:
		if (a-h.losBase)%PageSize != 0 {
			return false
		}
		k := h.los.startOf[(a-h.losBase)/PageSize]
		return k != 0 && h.los.objs[k-1].addr == a
	}
	return false
}

// checkHeader validates an object's size against its space.
func (h *Heap) checkHeader(obj Addr) error {
	size, nrefs := h.header(obj)
	limit := MaxSmallObject
	switch h.SpaceOf(obj) {
	case SpaceMajor:
		limit = int(sizeClasses[h.major.blocks[(obj-h.majorBase)/BlockSize].class])
	case SpaceLOS:
		limit = int(h.los.objs[h.los.startOf[(obj-h.losBase)/PageSize]-1].pages) * PageSize
	}
	if size%8 != 0 || size < HeaderSize+nrefs*SlotSize || size > limit {
		return fmt.Errorf("%w: %s object %#x has size %d with %d slots (limit %d)",
			ErrBadHeader, h.SpaceOf(obj), obj, size, nrefs, limit)
	}
	return nil
}

// visitTag marks word 0 of an object verifyReachable has visited.
const visitTag = 1 << 63

type hasher uint64

func (s *hasher) add(w uint64) { *s = hasher(bits.RotateLeft64(uint64(*s)^w, 27) * 0x100000001b3) }

func (h *Heap) verifyReachable(opt VerifyOptions, poll *poller) (VerifyResult, error) {
	var res VerifyResult
	queue := h.stack()
	n := 0
	sum := hasher(0x6a09e667f3bcc908)
	// visit returns obj's position in the traversal, enqueueing it the
	// first time; word 0 holds visitTag | (position+1)<<1 meanwhile. The
	// tag, bit 63, is one no address of the heap's (user-space, below
	// 2^47) and no mark has: a leftover forwarding address that happened
	// to be small enough would otherwise pass for a visit mark, and the
	// object behind it would never be checked.
	visit := func(obj Addr) uint64 {
		w := h.word(obj)
		if *w != 0 {
			return *w &^ visitTag >> 1
		}
		queue[n] = obj
		n++
		*w = visitTag | uint64(n)<<1
		return uint64(n)
	}
	var err error
	defer func() {
		for _, obj := range queue[:n] {
			*h.word(obj) = 0
		}
		h.releaseScratch(n)
	}()
	// Stale forwarding or mark words would be taken for visit marks: check
	// each object before its first visit.
	check := func(holder, slot, ref Addr) error {
		if err := h.checkRef(holder, slot, ref, opt); err != nil {
			return err
		}
		if w := *h.word(ref); w != 0 && (w&visitTag == 0 || w&1 != 0 || w&^visitTag>>1 > uint64(n)) {
			return fmt.Errorf("%w: %s object %#x has a stale forwarding or mark word %#x",
				ErrBadHeader, h.SpaceOf(ref), ref, w)
		}
		return nil
	}
	for i := 0; i < h.cfg.Roots; i++ {
		ref := h.Root(i)
		if ref == Nil {
			continue
		}
		if err = check(Nil, h.RootAddr(i), ref); err != nil {
			return res, err
		}
		sum.add(uint64(i))
		sum.add(visit(ref))
	}
	for k := 0; k < n; k++ {
		obj := queue[k]
		if err = h.checkHeader(obj); err != nil {
			return res, err
		}
		size, nrefs := h.header(obj)
		sum.add(packHeader(size, nrefs))
		res.Objects++
		res.Bytes += int64(size)
		for s := 0; s < nrefs; s++ {
			ref := h.Ref(obj, s)
			if ref == Nil {
				sum.add(0)
				continue
			}
			if err = check(obj, SlotAddr(obj, s), ref); err != nil {
				return res, err
			}
			sum.add(visit(ref))
		}
		off := HeaderSize + nrefs*SlotSize
		sum.add(uint64(crc32.Update(0, castagnoli, h.bytes(obj+Addr(off), size-off))))
		if err = poll.add(objectCost + int64(size)); err != nil {
			return res, err
		}
	}
	res.Checksum = mix64(uint64(sum) ^ uint64(n))
	return res, nil
}

// verifyAll checks the slots of every allocated object — major blocks,
// LOS objects, then the nursery — and stops at the first bad one.
func (h *Heap) verifyAll(opt VerifyOptions, poll *poller) error {
	for i := 0; i < h.major.highWater; i++ {
		if err := h.verifyBlock(i, opt); err != nil {
			return err
		}
		if err := poll.add(BlockSize); err != nil {
			return err
		}
	}
	for _, e := range h.los.objs {
		if e.addr == Nil {
			continue
		}
		if err := h.checkSlots(e.addr, opt); err != nil {
			return err
		}
		if err := poll.add(objectCost + int64(h.Size(e.addr))); err != nil {
			return err
		}
	}
	for obj := h.nurseryBase; obj < h.nursery.bump; obj += Addr(h.Size(obj)) {
		if err := h.checkSlots(obj, opt); err != nil {
			return err
		}
		if err := poll.add(objectCost + int64(h.Size(obj))); err != nil {
			return err
		}
	}
	return nil
}

// verifyBlock checks the slots of every allocated object in block i.
func (h *Heap) verifyBlock(i int, opt VerifyOptions) error {
	b := &h.major.blocks[i]
	if b.class < 0 {
		return nil
	}
	start := h.majorBase + Addr(i)*BlockSize
	for idx := 0; idx < int(b.bump); idx++ {
		obj := start + Addr(idx*int(sizeClasses[b.class]))
		if *h.word(obj + 8) == 0 {
			continue // a free slot
		}
		if err := h.checkSlots(obj, opt); err != nil {
			return err
		}
	}
	return nil
}

// checkSlots checks obj's header and the reference in each of its slots.
func (h *Heap) checkSlots(obj Addr, opt VerifyOptions) error {
	if err := h.checkHeader(obj); err != nil {
		return err
	}
	_, nrefs := h.header(obj)
	for s := 0; s < nrefs; s++ {
		if ref := h.Ref(obj, s); ref != Nil {
			if err := h.checkRef(obj, SlotAddr(obj, s), ref, opt); err != nil {
				return err
			}
		}
	}
	return nil
}
