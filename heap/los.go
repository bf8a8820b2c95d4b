package heap

import (
	"fmt"
	"sort"
)

// losEntry is one slot of the LOS object array; addr is Nil for a hole
// left by a freed object (reused by the next allocation).
type losEntry struct {
	addr  Addr
	pages uint32
}

// pageRun is a run of free LOS pages [start, start+n).
type pageRun struct{ start, n int }

// losState is the large-object space: the object array that collection
// jobs split into contiguous slices, a page → array index table for O(1)
// object-start checks, and first-fit free page runs kept sorted.
type losState struct {
	objs      []losEntry
	holes     []int32
	startOf   []int32 // page → index+1 of the object starting there, or 0
	runs      []pageRun
	highWater int // pages [0, highWater) have been used at least once
	used      int // pages held by objects
}

func (l *losState) init(h *Heap) {
	n := int(h.cfg.LOS / PageSize)
	l.startOf = make([]int32, n)
	l.runs = []pageRun{{0, n}}
}

// AllocLOS allocates a page-aligned large object of size bytes (>
// MaxSmallObject) with nrefs nil reference slots and a seeded payload. It
// returns an error wrapping ErrLOSFull when no run of free pages fits.
func (h *Heap) AllocLOS(size, nrefs int) (Addr, error) {
	size, err := checkShape(size, nrefs)
	if err != nil {
		return Nil, err
	}
	if size <= MaxSmallObject {
		return Nil, fmt.Errorf("%w: %d bytes is a small object (≤ %d); use AllocMajor", ErrBadObject, size, MaxSmallObject)
	}
	l := &h.los
	pages := (size + PageSize - 1) / PageSize
	r := -1
	for k, run := range l.runs {
		if run.n >= pages {
			r = k
			break
		}
	}
	if r < 0 {
		return Nil, fmt.Errorf("%w: no run of %d free pages for a %d-byte object (%d of %d pages in use; LOS = %d bytes)",
			ErrLOSFull, pages, size, l.used, len(l.startOf), h.cfg.LOS)
	}
	page := l.runs[r].start
	l.runs[r].start += pages
	l.runs[r].n -= pages
	if l.runs[r].n == 0 {
		l.runs = append(l.runs[:r], l.runs[r+1:]...)
	}
	l.used += pages
	l.highWater = max(l.highWater, page+pages)
	a := h.losBase + Addr(page)*PageSize
	e := losEntry{addr: a, pages: uint32(pages)}
	var idx int
	if n := len(l.holes); n > 0 {
		idx = int(l.holes[n-1])
		l.holes = l.holes[:n-1]
		l.objs[idx] = e
	} else {
		idx = len(l.objs)
		l.objs = append(l.objs, e)
	}
	l.startOf[page] = int32(idx) + 1
	h.initObject(a, size, nrefs)
	return a, nil
}

// freeLOS frees the object at array index idx: its pages rejoin the free
// runs (coalesced) and its cards are cleared.
func (h *Heap) freeLOS(idx int) {
	l := &h.los
	e := l.objs[idx]
	page := int((e.addr - h.losBase) / PageSize)
	n := int(e.pages)
	l.startOf[page] = 0
	l.objs[idx] = losEntry{}
	l.holes = append(l.holes, int32(idx))
	l.used -= n
	c0, c1 := int(e.addr/CardSize), int((e.addr+Addr(n)*PageSize)/CardSize)
	clear(h.cards.mem[c0:c1])
	clear(h.shadow.mem[c0:c1])
	k := sort.Search(len(l.runs), func(k int) bool { return l.runs[k].start > page })
	l.runs = append(l.runs, pageRun{})
	copy(l.runs[k+1:], l.runs[k:])
	l.runs[k] = pageRun{page, n}
	if k+1 < len(l.runs) && l.runs[k].start+l.runs[k].n == l.runs[k+1].start {
		l.runs[k].n += l.runs[k+1].n
		l.runs = append(l.runs[:k+1], l.runs[k+2:]...)
	}
	if k > 0 && l.runs[k-1].start+l.runs[k-1].n == l.runs[k].start {
		l.runs[k-1].n += l.runs[k].n
		l.runs = append(l.runs[:k], l.runs[k+1:]...)
	}
}

// LOSUsage reports the LOS pages held by objects and the total.
func (h *Heap) LOSUsage() (usedPages, totalPages int) { return h.los.used, len(h.los.startOf) }

// LOSObject returns the object at index i of the LOS array (Nil for a hole).
func (h *Heap) LOSObject(i int) Addr { return h.los.objs[i].addr }

// LOSObjects is the length of the LOS object array, holes included.
func (h *Heap) LOSObjects() int { return len(h.los.objs) }
