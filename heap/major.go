package heap

import (
	"fmt"
	"sync"
)

// block is a major block's metadata. It lives on the Go heap (a few bytes
// per 16 KiB block) and has no pointers, so the host collector never scans
// it. A block is owned by at most one allocBuffer at a time; ownership
// passes under majorState.mu.
type block struct {
	free    Addr   // head of the free list, threaded through word 0 of free slots
	bump    uint16 // slots carved so far; slots ≥ bump were never used
	live    uint16 // allocated objects
	next    int32  // next block + 1 on the list this block is on, 0 at the end
	class   int8   // size class, -1 while the block is empty
	hasRefs bool   // some object allocated here has reference slots
}

// blockList is an intrusive stack of blocks threaded through block.next,
// so that moving blocks between lists never allocates.
type blockList struct{ head int32 }

func (l *blockList) push(m *majorState, i int) {
	m.blocks[i].next = l.head
	l.head = int32(i) + 1
}

func (l *blockList) pop(m *majorState) (int, bool) {
	if l.head == 0 {
		return 0, false
	}
	i := int(l.head) - 1
	l.head = m.blocks[i].next
	m.blocks[i].next = 0
	return i, true
}

func (b *block) hasRoom(class int) bool {
	return b.free != Nil || int(b.bump) < objectsPerBlock(class)
}

// majorState is the major heap's block array and the shared block lists.
type majorState struct {
	mu        sync.Mutex
	blocks    []block
	dirty     []uint32  // the epoch in which each block last had marked cards
	highWater int       // blocks [0, highWater) have been used at least once
	used      int       // blocks holding a size class (not empty)
	empty     blockList // empty blocks below highWater
	partial   [NumSizeClasses]blockList
	skipped   blockList // partial blocks passed over because they are being card-scanned
}

func (m *majorState) init(h *Heap) {
	n := int(h.cfg.MajorHeap / BlockSize)
	m.blocks = make([]block, n)
	m.dirty = make([]uint32, n)
}

// takeBlock hands a block of the given class to an allocation buffer: a
// partially free block of that class if one is not being card-scanned in
// this collection, else an empty block. One lock acquisition per block.
func (h *Heap) takeBlock(class int) (int, error) {
	m := &h.major
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		i, ok := m.partial[class].pop(m)
		if !ok {
			break
		}
		if h.minorPending && m.dirty[i] == h.epoch {
			m.skipped.push(m, i)
			continue
		}
		return i, nil
	}
	i, ok := m.empty.pop(m)
	switch {
	case ok:
	case m.highWater < len(m.blocks):
		i = m.highWater
		m.highWater++
	default:
		return 0, fmt.Errorf("%w: all %d blocks of %d bytes are in use (MajorHeap = %d bytes)",
			ErrMajorHeapFull, len(m.blocks), BlockSize, h.cfg.MajorHeap)
	}
	m.used++
	m.blocks[i] = block{class: int8(class)}
	return i, nil
}

// An allocBuffer allocates major-heap objects from blocks it owns, one block
// per size class at a time, without any lock per object. The mutator has
// one; a collector worker has one inside its Promoter.
type allocBuffer struct {
	h   *Heap
	cur [NumSizeClasses]int32 // owned block + 1, or 0
}

// newAllocBuffer returns an empty allocation buffer.
func (h *Heap) newAllocBuffer() *allocBuffer { return &allocBuffer{h: h} }

// alloc returns the address of a free slot of the class, taking a new
// block when the current one is full.
func (b *allocBuffer) alloc(class int, refs bool) (Addr, error) {
	h := b.h
	for {
		if i := int(b.cur[class]) - 1; i >= 0 {
			blk := &h.major.blocks[i]
			if refs {
				blk.hasRefs = true
			}
			if a := blk.free; a != Nil {
				blk.free = Addr(*h.word(a))
				blk.live++
				return a, nil
			}
			if int(blk.bump) < objectsPerBlock(class) {
				a := h.majorBase + Addr(i)*BlockSize + Addr(int(blk.bump)*int(sizeClasses[class]))
				blk.bump++
				blk.live++
				return a, nil
			}
		}
		i, err := h.takeBlock(class)
		if err != nil {
			return Nil, err
		}
		b.cur[class] = int32(i) + 1
	}
}

// unalloc returns a slot just taken by alloc to its block's free list.
func (b *allocBuffer) unalloc(a Addr) {
	h := b.h
	blk := &h.major.blocks[(a-h.majorBase)/BlockSize]
	*h.word(a + 8) = 0
	*h.word(a) = uint64(blk.free)
	blk.free = a
	blk.live--
}

// release returns the buffer's blocks to the shared lists under one lock
// acquisition; blocks with free slots become available to other buffers.
func (b *allocBuffer) release() {
	m := &b.h.major
	m.mu.Lock()
	for class, c := range b.cur {
		if c == 0 {
			continue
		}
		if i := int(c - 1); m.blocks[i].hasRoom(class) {
			m.partial[class].push(m, i)
		}
		b.cur[class] = 0
	}
	m.mu.Unlock()
}

// AllocMajor allocates an object of size bytes (HeaderSize ≤ size ≤
// MaxSmallObject) with nrefs nil reference slots and a seeded payload in the
// major heap, from the mutator's allocation buffer.
func (h *Heap) AllocMajor(size, nrefs int) (Addr, error) {
	size, err := checkShape(size, nrefs)
	if err != nil {
		return Nil, err
	}
	if size > MaxSmallObject {
		return Nil, fmt.Errorf("%w: %d bytes is a large object (> %d); use AllocLOS", ErrBadObject, size, MaxSmallObject)
	}
	class, _, _ := SizeClass(size)
	a, err := h.mutator.alloc(class, nrefs > 0)
	if err != nil {
		return Nil, err
	}
	h.initObject(a, size, nrefs)
	return a, nil
}

// MajorUsage reports the major heap's blocks: those holding objects and the total.
func (h *Heap) MajorUsage() (usedBlocks, totalBlocks int) {
	h.major.mu.Lock()
	defer h.major.mu.Unlock()
	return h.major.used, len(h.major.blocks)
}

// BlockClass returns the size class of major block i, or -1 if it is empty
// (blocks never used yet included).
func (h *Heap) BlockClass(i int) int {
	if i >= h.major.highWater {
		return -1
	}
	return int(h.major.blocks[i].class)
}

// BlockOf returns the index of the major block holding a (a must be in SpaceMajor).
func (h *Heap) BlockOf(a Addr) int { return int((a - h.majorBase) / BlockSize) }
