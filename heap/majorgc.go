package heap

import (
	"context"
	"fmt"
	"unsafe"
)

// MajorStats describes one major collection.
type MajorStats struct {
	LiveObjects, LiveBytes   int64 // marked in the major heap and LOS
	FreedObjects, FreedBytes int64
	UsedBlocks, TotalBlocks  int // after the sweep
	LOSUsedPages             int
}

// stack returns the scratch area as a stack of addresses (off the Go heap).
func (h *Heap) stack() []Addr {
	return unsafe.Slice((*Addr)(h.scratch.base()), h.scratchCap)
}

// releaseScratch returns the scratch pages touched by n entries to the kernel.
func (h *Heap) releaseScratch(n int) {
	if b := int64(n) * 8; b > 1<<20 {
		h.scratch.release(0, roundUp(b, PageSize))
	}
}

// MajorCollect is MajorCollectContext that cannot be interrupted.
func (h *Heap) MajorCollect() (MajorStats, error) {
	return h.MajorCollectContext(context.Background())
}

// MajorCollectContext runs a full, untimed mark-sweep of the major heap and
// the LOS: it marks everything reachable from the roots (scanned in full, as
// SGen's major collections do), returns unmarked small objects to their
// blocks' free lists and empty blocks to the shared list, and frees unmarked
// large objects' pages. The nursery must be empty (call it between
// ResetNursery and the next mutator phase).
//
// It looks at ctx after about every MiB of objects marked or swept. If ctx
// ends first, it returns an error wrapping ctx.Err(), and the heap, its mark
// bits and free lists half-built, can only be closed: MajorCollect, Verify
// and Populate then return ErrInterrupted. (Undoing a half-done mark would
// take as long as the mark itself.)
func (h *Heap) MajorCollectContext(ctx context.Context) (MajorStats, error) {
	var st MajorStats
	if err := h.usable(); err != nil {
		return st, err
	}
	if h.NurseryUsed() != 0 || h.minorPending {
		return st, fmt.Errorf("major collection: %w", ErrNurseryNotEmpty)
	}
	h.mutator.release()
	poll := newPoller(ctx)
	n, err := h.mark(&poll)
	h.releaseScratch(n)
	if err == nil {
		err = h.sweepMajor(&st, &poll)
	}
	if err == nil {
		err = h.sweepLOS(&st, &poll)
	}
	if err != nil {
		h.interrupted = true
		return st, fmt.Errorf("major collection interrupted (the heap can only be closed): %w", err)
	}
	st.UsedBlocks, st.TotalBlocks = h.major.used, len(h.major.blocks)
	st.LOSUsedPages = h.los.used
	return st, nil
}

// mark sets the mark bit of every object reachable from the roots and
// returns the deepest stack used, or stops with the poller's error.
func (h *Heap) mark(poll *poller) (int, error) {
	stack := h.stack()
	sp, deepest := 0, 0
	push := func(a Addr) {
		if a == Nil {
			return
		}
		w := h.word(a)
		if *w&markBit != 0 {
			return
		}
		*w |= markBit
		stack[sp] = a
		sp++
		deepest = max(deepest, sp)
	}
	for i := 0; i < h.cfg.Roots; i++ {
		push(h.Root(i))
	}
	for sp > 0 {
		sp--
		obj := stack[sp]
		_, nrefs := h.header(obj)
		for s := 0; s < nrefs; s++ {
			push(h.Ref(obj, s))
		}
		if err := poll.add(objectCost + int64(nrefs)*SlotSize); err != nil {
			return deepest, err
		}
	}
	return deepest, nil
}

func (h *Heap) sweepMajor(st *MajorStats, poll *poller) error {
	m := &h.major
	m.mu.Lock()
	defer m.mu.Unlock()
	m.empty = blockList{}
	m.partial = [NumSizeClasses]blockList{}
	for i := 0; i < m.highWater; i++ {
		b := &m.blocks[i]
		if b.class < 0 {
			m.empty.push(m, i)
			continue
		}
		h.sweepBlock(i, b, st)
		switch {
		case b.live == 0:
			*b = block{class: -1}
			m.used--
			*h.blockCardWords(h.cardp, i) = [CardsPerBlock / 8]uint64{}
			m.empty.push(m, i)
		case b.hasRoom(int(b.class)):
			m.partial[b.class].push(m, i)
		}
		if err := poll.add(BlockSize); err != nil {
			return err
		}
	}
	return nil
}

// sweepBlock clears the marks of block i's live objects and puts its dead
// ones on the block's free list.
func (h *Heap) sweepBlock(i int, b *block, st *MajorStats) {
	stride := Addr(sizeClasses[b.class])
	start := h.majorBase + Addr(i)*BlockSize
	b.live, b.hasRefs = 0, false
	for idx := Addr(0); idx < Addr(b.bump); idx++ {
		obj := start + idx*stride
		hw := h.word(obj + 8)
		if *hw == 0 {
			continue // already free
		}
		size, nrefs := int64(uint32(*hw)), *hw>>32
		if w := h.word(obj); *w&markBit != 0 {
			*w = 0
			b.live++
			b.hasRefs = b.hasRefs || nrefs > 0
			st.LiveObjects++
			st.LiveBytes += size
			continue
		}
		*hw = 0
		*h.word(obj) = uint64(b.free)
		b.free = obj
		st.FreedObjects++
		st.FreedBytes += size
	}
}

func (h *Heap) sweepLOS(st *MajorStats, poll *poller) error {
	for i, e := range h.los.objs {
		if e.addr == Nil {
			continue
		}
		if err := poll.add(objectCost); err != nil {
			return err
		}
		size := int64(h.Size(e.addr))
		if w := h.word(e.addr); *w&markBit != 0 {
			*w = 0
			st.LiveObjects++
			st.LiveBytes += size
			continue
		}
		st.FreedObjects++
		st.FreedBytes += size
		h.freeLOS(i)
	}
	return nil
}
