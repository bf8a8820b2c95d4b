package heap

import (
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

// MajorCollect runs a full, untimed mark-sweep of the major heap and the LOS:
// it marks everything reachable from the roots (scanned in full, as SGen's
// major collections do), returns unmarked small objects to their blocks'
// free lists and empty blocks to the shared list, and frees unmarked large
// objects' pages. The nursery must be empty (call it between ResetNursery and
// the next mutator phase).
func (h *Heap) MajorCollect() (MajorStats, error) {
	var st MajorStats
	if h.closed {
		return st, ErrClosed
	}
	if h.NurseryUsed() != 0 || h.minorPending {
		return st, fmt.Errorf("major collection: %w", ErrNurseryNotEmpty)
	}
	h.mutator.release()
	n := h.mark()
	h.releaseScratch(n)
	h.sweepMajor(&st)
	h.sweepLOS(&st)
	st.UsedBlocks, st.TotalBlocks = h.major.used, len(h.major.blocks)
	st.LOSUsedPages = h.los.used
	return st, nil
}

// mark sets the mark bit of every object reachable from the roots and
// returns the deepest stack used.
func (h *Heap) mark() int {
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
	}
	return deepest
}

func (h *Heap) sweepMajor(st *MajorStats) {
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
		switch {
		case b.live == 0:
			*b = block{class: -1}
			m.used--
			*h.blockCardWords(h.cardp, i) = [CardsPerBlock / 8]uint64{}
			m.empty.push(m, i)
		case b.hasRoom(int(b.class)):
			m.partial[b.class].push(m, i)
		}
	}
}

func (h *Heap) sweepLOS(st *MajorStats) {
	for i, e := range h.los.objs {
		if e.addr == Nil {
			continue
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
}
