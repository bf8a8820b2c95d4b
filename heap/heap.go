package heap

import (
	"fmt"
	"sync"
	"unsafe"
)

// Addr is a simulated address: a byte offset into a Heap's address space.
// Nil (0) is the null reference.
type Addr uint64

// Nil is the null reference.
const Nil Addr = 0

// Space names the region an address belongs to.
type Space uint8

// The spaces of a heap's address space, in address order.
const (
	SpaceNone    Space = iota // nil, the guard page, or beyond the heap
	SpaceRoots                // the write-barrier root slots
	SpaceNursery              // bump-allocated young objects
	SpaceMajor                // 16 KiB blocks of small old objects
	SpaceLOS                  // page-aligned large objects
)

// String returns the space's name.
func (s Space) String() string {
	switch s {
	case SpaceRoots:
		return "roots"
	case SpaceNursery:
		return "nursery"
	case SpaceMajor:
		return "major"
	case SpaceLOS:
		return "LOS"
	}
	return "none"
}

// Heap is a simulated generational heap. Its methods are not safe for
// concurrent use, except what a minor collection's workers call between
// PrepareCards and ResetNursery: the Scan* helpers on disjoint ranges and
// the methods of distinct Promoters.
type Heap struct {
	cfg  Config
	mem  arena          // the address space
	base unsafe.Pointer // mem's first byte

	// Space boundaries: [rootsBase, nurseryBase, majorBase, losBase, end).
	rootsBase, nurseryBase, majorBase, losBase, end Addr

	cards  arena // one byte per CardSize bytes of address space
	shadow arena // the cards as copied by PrepareCards
	cardp  unsafe.Pointer
	shadp  unsafe.Pointer

	scratch    arena // off-heap stack/queue for marking and verification
	scratchCap int64

	nursery nurseryState
	major   majorState
	los     losState

	allocSeq uint64 // allocation sequence number: payload seeds
	mutator  *allocBuffer

	// epoch counts PrepareCards calls: a block whose dirty epoch equals it
	// is being card-scanned and must not be handed to a promotion buffer.
	epoch               uint32
	scanBlocks, scanLOS int // snapshot taken by PrepareCards
	minorPending        bool

	closeOnce   sync.Once
	closed      bool
	interrupted bool // a major collection stopped half-way (ErrInterrupted)
}

// New reserves the heap's address space and metadata. Nothing is touched
// yet, so a large heap is cheap until it is filled. A heap larger than the
// machine's available memory is refused (Config.CheckMemory, ErrTooLarge):
// it could not be filled, and its metadata alone might not fit.
func New(cfg Config) (*Heap, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.CheckMemory(AvailableMemory()); err != nil {
		return nil, err
	}
	rootsBytes := roundUp(int64(cfg.Roots)*SlotSize, PageSize)
	h := &Heap{cfg: cfg}
	h.rootsBase = PageSize // the first page is a guard so that 0 is nil
	h.nurseryBase = h.rootsBase + Addr(rootsBytes)
	h.majorBase = h.nurseryBase + Addr(cfg.Nursery)
	h.majorBase = Addr(roundUp(int64(h.majorBase), BlockSize))
	h.losBase = h.majorBase + Addr(cfg.MajorHeap)
	h.end = h.losBase + Addr(cfg.LOS)

	var err error
	if h.mem, err = mapArena(int64(h.end)); err != nil {
		return nil, fmt.Errorf("reserving the heap (MajorHeap %d + LOS %d + Nursery %d bytes; lower them): %w",
			cfg.MajorHeap, cfg.LOS, cfg.Nursery, err)
	}
	h.base = h.mem.base()
	ncards := int64(h.end) / CardSize
	if h.cards, err = mapArena(ncards); err == nil {
		if h.shadow, err = mapArena(ncards); err == nil {
			h.scratchCap = int64(h.end)/HeaderSize + int64(cfg.Roots)
			h.scratch, err = mapArena(h.scratchCap * 8)
		}
	}
	if err != nil {
		h.unmapAll()
		return nil, fmt.Errorf("reserving the card tables: %w", err)
	}
	h.cardp, h.shadp = h.cards.base(), h.shadow.base()
	h.nursery.init(h)
	h.major.init(h)
	h.los.init(h)
	h.mutator = h.newAllocBuffer()
	return h, nil
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }

// Close returns all of the heap's memory to the kernel. It is idempotent;
// the heap must not be used afterwards.
func (h *Heap) Close() error {
	var err error
	h.closeOnce.Do(func() {
		h.closed = true
		err = h.unmapAll()
	})
	return err
}

func (h *Heap) unmapAll() error {
	var first error
	for _, a := range []*arena{&h.mem, &h.cards, &h.shadow, &h.scratch} {
		if e := a.unmap(); e != nil && first == nil {
			first = e
		}
	}
	h.base, h.cardp, h.shadp = nil, nil, nil
	return first
}

// Config returns the configuration the heap was built with.
func (h *Heap) Config() Config { return h.cfg }

// SpaceOf tells which space a is in, in constant time. It does not check
// that a is an object start; see Verify.
func (h *Heap) SpaceOf(a Addr) Space {
	switch {
	case a < h.rootsBase || a >= h.end:
		return SpaceNone
	case a >= h.losBase:
		return SpaceLOS
	case a >= h.majorBase:
		return SpaceMajor
	case a >= h.nurseryBase+Addr(h.cfg.Nursery):
		return SpaceNone // padding before the first block
	case a >= h.nurseryBase:
		return SpaceNursery
	case a >= h.rootsBase+Addr(h.cfg.Roots)*SlotSize:
		return SpaceNone
	}
	return SpaceRoots
}

// InNursery reports whether a is a nursery address: the write barrier's test.
func (h *Heap) InNursery(a Addr) bool {
	return a >= h.nurseryBase && a < h.nurseryBase+Addr(h.cfg.Nursery)
}

// Bounds returns the first address and the end of a space.
func (h *Heap) Bounds(s Space) (lo, hi Addr) {
	switch s {
	case SpaceRoots:
		return h.rootsBase, h.rootsBase + Addr(h.cfg.Roots)*SlotSize
	case SpaceNursery:
		return h.nurseryBase, h.nurseryBase + Addr(h.cfg.Nursery)
	case SpaceMajor:
		return h.majorBase, h.losBase
	case SpaceLOS:
		return h.losBase, h.end
	}
	return 0, 0
}

// word returns a pointer to the 8-byte word at a.
func (h *Heap) word(a Addr) *uint64 { return (*uint64)(unsafe.Add(h.base, a)) }

// bytes returns the n bytes at a as a slice of the mapping.
func (h *Heap) bytes(a Addr, n int) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(h.base, a)), n)
}
