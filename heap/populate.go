package heap

import (
	"errors"
	"fmt"
)

// PopulateConfig describes the old generation Populate builds.
type PopulateConfig struct {
	// MajorFill is the fraction of the major heap to fill with small
	// objects, counted in slot bytes (0 ≤ MajorFill ≤ 0.95).
	MajorFill float64
	// LOSFill is the fraction of the LOS to fill with large objects (0 ≤ LOSFill ≤ 0.95).
	LOSFill float64
	// MaxLargeObject caps a large object's size (default 256 KiB).
	MaxLargeObject int
	// Roots is how many root slots, from slot 0, hold the generation's
	// tops (0: all of them); the rest are left nil for the mutator.
	Roots int
	// Sample, if non-empty, receives a uniform random sample (reservoir
	// sampling) of the objects with reference slots that Populate built;
	// entries beyond the number of such objects are left Nil. Every built
	// object stays reachable as long as nobody overwrites a non-nil slot or
	// root that Populate set, so a mutator can use the sample as store
	// targets without walking the graph.
	Sample []Addr
	// Seed drives the sizes and the graph's shape (not the payload, which
	// comes from the heap's seed).
	Seed uint64
}

// DefaultPopulateConfig fills the major heap to 60% and the LOS to 90%.
func DefaultPopulateConfig() PopulateConfig {
	return PopulateConfig{MajorFill: 0.6, LOSFill: 0.9, MaxLargeObject: 256 << 10, Seed: 1}
}

// Validate names the first field out of range, wrapping ErrInvalidConfig.
func (c PopulateConfig) Validate() error {
	switch {
	case !(c.MajorFill >= 0 && c.MajorFill <= 0.95):
		return fmt.Errorf("%w: MajorFill = %g, want 0 ≤ MajorFill ≤ 0.95", ErrInvalidConfig, c.MajorFill)
	case !(c.LOSFill >= 0 && c.LOSFill <= 0.95):
		return fmt.Errorf("%w: LOSFill = %g, want 0 ≤ LOSFill ≤ 0.95", ErrInvalidConfig, c.LOSFill)
	case c.Roots < 0:
		return fmt.Errorf("%w: Roots = %d, want ≥ 0", ErrInvalidConfig, c.Roots)
	case c.MaxLargeObject != 0 && c.MaxLargeObject < 2*PageSize:
		return fmt.Errorf("%w: MaxLargeObject = %d, want 0 (default) or ≥ %d", ErrInvalidConfig, c.MaxLargeObject, 2*PageSize)
	}
	return nil
}

// Rand is a small deterministic generator (splitmix64) used for seeded
// shapes; it is not safe for concurrent use.
type Rand struct{ s uint64 }

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

// Uint64 returns the next pseudo-random value.
func (r *Rand) Uint64() uint64 { r.s += 0x9e3779b97f4a7c15; return mix64(r.s) }

// Intn returns a value in [0, n); n must be > 0.
func (r *Rand) Intn(n int) int { return int((r.Uint64() >> 11) % uint64(n)) }

// Float64 returns a value in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// SmallShape draws an object size and slot count from gcbench's size mix:
// 70% of objects 16–128 bytes, 25% 128–1024, 5% 1–8000 bytes; about a
// quarter of each object's words are reference slots, at most 8, and a fifth
// of objects have none.
func (r *Rand) SmallShape() (size, nrefs int) {
	switch p := r.Intn(100); {
	case p < 70:
		size = 16 + 8*r.Intn(15)
	case p < 95:
		size = 128 + 8*r.Intn(113)
	default:
		size = 1024 + 8*r.Intn(873)
	}
	if words := (size - HeaderSize) / SlotSize; words > 0 && r.Intn(5) > 0 {
		nrefs = min(8, words, 1+r.Intn(max(1, words/4)))
	}
	return size, nrefs
}

// Populate builds a seeded, connected old generation in an empty heap: large objects (arrays
// whose first half are reference slots) and small objects from SmallShape,
// interleaved, until the major heap and the LOS reach their fill fractions.
// Every object is reachable: the first objects fill the root slots, every
// later one is stored in a nil slot of a uniformly chosen earlier object (a
// random recursive tree, so the graph is about ln(objects) deep and most
// objects keep nil slots), and a fifth of slots also get cross links to
// other earlier objects. Populate stores old references only, so it marks
// no cards. It lists the objects in the off-heap scratch area, so its Go
// memory use is constant.
func (h *Heap) Populate(pc PopulateConfig) error {
	if err := pc.Validate(); err != nil {
		return err
	}
	if pc.MaxLargeObject == 0 {
		pc.MaxLargeObject = 256 << 10
	}
	r := NewRand(pc.Seed)
	majorTarget := int64(pc.MajorFill * float64(h.cfg.MajorHeap))
	losTarget := int64(pc.LOSFill * float64(h.cfg.LOS))
	var majorDone, losDone int64
	all := h.stack() // earlier objects that may have nil slots
	n, seen := 0, 0
	defer func() { h.releaseScratch(seen) }() // seen ≥ the most entries ever listed
	nextRoot, roots := 0, h.cfg.Roots
	if pc.Roots > 0 {
		roots = min(pc.Roots, roots)
	}
	// nilSlot returns a nil slot of a random earlier object, or Nil. An
	// object found full is dropped from the candidates.
	nilSlot := func() Addr {
		for range 8 {
			if n == 0 {
				return Nil
			}
			j := r.Intn(n)
			o := all[j]
			k := h.NumRefs(o)
			for p, s := 0, r.Intn(k); p < min(k, 8); p, s = p+1, (s+1)%k {
				if h.Ref(o, s) == Nil {
					return SlotAddr(o, s)
				}
			}
			if k <= 8 {
				n--
				all[j] = all[n]
			}
		}
		return Nil
	}
	clear(pc.Sample)
	reservoir := NewRand(pc.Seed ^ 0xa0761d6478bd642f) // apart from r: the graph must not depend on len(Sample)
	attach := func(obj Addr, nrefs int) {
		if nextRoot < roots {
			h.WriteRoot(nextRoot, obj)
			nextRoot++
		} else if slot := nilSlot(); slot != Nil {
			h.storeSlot(slot, obj)
		} else {
			return // rare: left unreachable, garbage for the first major collection
		}
		for s := 0; s < nrefs && n > 0; s++ {
			if r.Intn(5) == 0 {
				h.storeSlot(SlotAddr(obj, s), all[r.Intn(n)])
			}
		}
		if nrefs > 0 {
			if seen < len(pc.Sample) {
				pc.Sample[seen] = obj
			} else if j := reservoir.Intn(seen + 1); j < len(pc.Sample) {
				pc.Sample[j] = obj
			}
			seen++
			all[n] = obj
			n++
		}
	}
	for majorDone < majorTarget || losDone < losTarget {
		large := losDone < losTarget &&
			(majorDone >= majorTarget || float64(losDone)/float64(losTarget) <= float64(majorDone)/float64(majorTarget))
		if large {
			size := MaxSmallObject + 8 + 8*r.Intn((pc.MaxLargeObject-MaxSmallObject)/8)
			nrefs := (size - HeaderSize) / SlotSize / 2
			obj, err := h.AllocLOS(size, nrefs)
			if errors.Is(err, ErrLOSFull) {
				losTarget = losDone // fragmentation: stop filling the LOS
				continue
			}
			if err != nil {
				return fmt.Errorf("populating the LOS: %w", err)
			}
			losDone += roundUp(int64(size), PageSize)
			attach(obj, nrefs)
			continue
		}
		size, nrefs := r.SmallShape()
		obj, err := h.AllocMajor(size, nrefs)
		if err != nil {
			return fmt.Errorf("populating the major heap: %w", err)
		}
		_, stride, _ := SizeClass(size)
		majorDone += int64(stride)
		attach(obj, nrefs)
	}
	h.mutator.release()
	return nil
}
