package heap

import (
	"context"
	"errors"
	"fmt"

	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/setting"
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

// Validate reports the first field out of range as a *setting.Error (keys
// "populate.major_fill" and so on), which wraps ErrInvalidConfig.
func (c PopulateConfig) Validate() error {
	bad := func(key string, v any, want string) error {
		return &setting.Error{Field: "populate." + key, Value: fmt.Sprint(v), Want: want}
	}
	switch {
	case !(c.MajorFill >= 0 && c.MajorFill <= MaxFill):
		return bad("major_fill", c.MajorFill, fmt.Sprintf("0 ≤ value ≤ %g", MaxFill))
	case !(c.LOSFill >= 0 && c.LOSFill <= MaxFill):
		return bad("los_fill", c.LOSFill, fmt.Sprintf("0 ≤ value ≤ %g", MaxFill))
	case c.Roots < 0:
		return bad("roots", c.Roots, "≥ 0 (0: all of them)")
	case c.MaxLargeObject != 0 && (c.MaxLargeObject < 2*PageSize || c.MaxLargeObject > maxObjectSize):
		return bad("max_large_object", c.MaxLargeObject, fmt.Sprintf("0 (default) or %d to %d", 2*PageSize, maxObjectSize))
	}
	return nil
}

// MaxFill is the largest MajorFill and LOSFill Populate accepts: a full
// space would leave nothing for the mutator and the collector.
const MaxFill = 0.95

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

// Populate is PopulateContext that cannot be interrupted.
func (h *Heap) Populate(pc PopulateConfig) error {
	return h.PopulateContext(context.Background(), pc)
}

// PopulateContext builds a seeded, connected old generation in an empty
// heap: large objects (arrays whose first half are reference slots) and
// small objects from SmallShape, interleaved, until the major heap and the
// LOS reach their fill fractions.
// Nearly every object is reachable: the first objects fill the root slots,
// every later one is stored in a nil slot of a uniformly chosen earlier
// object (a random recursive tree, so the graph is about ln(objects) deep
// and most objects keep nil slots), and a fifth of slots also get cross
// links to other earlier objects. An object for which eight draws find no
// nil slot is left unreachable, garbage for the first major collection,
// which is rare. It stores old references only, so it marks no
// cards. It lists the objects in the off-heap scratch area, so its Go
// memory use is constant.
//
// It looks at ctx after about every MiB of objects built. If ctx ends first,
// it returns an error wrapping ctx.Err(); the objects built so far stay a
// connected, valid old generation, so the heap remains usable.
func (h *Heap) PopulateContext(ctx context.Context, pc PopulateConfig) error {
	if err := h.usable(); err != nil {
		return err
	}
	if err := pc.Validate(); err != nil {
		return err
	}
	p := h.newPopulator(pc)
	defer func() {
		h.releaseScratch(p.seen) // seen ≥ the most entries ever listed
		h.mutator.release()
	}()
	poll := newPoller(ctx)
	for p.majorDone < p.majorTarget || p.losDone < p.losTarget {
		built, err := p.step()
		if err != nil {
			return err
		}
		if err := poll.add(built + objectCost); err != nil {
			return fmt.Errorf("populating the heap: interrupted after %s of %s: %w",
				bytesize.Format(p.majorDone+p.losDone), bytesize.Format(p.majorTarget+p.losTarget), err)
		}
	}
	return nil
}

// populator is PopulateContext's state between objects.
type populator struct {
	h         *Heap
	pc        PopulateConfig
	r         *Rand
	reservoir *Rand  // apart from r: the graph must not depend on len(Sample)
	all       []Addr // earlier objects that may have nil slots (off-heap scratch)
	n, seen   int    // entries of all; objects with slots built so far

	nextRoot, roots                            int
	majorTarget, losTarget, majorDone, losDone int64
}

func (h *Heap) newPopulator(pc PopulateConfig) *populator {
	if pc.MaxLargeObject == 0 {
		pc.MaxLargeObject = 256 << 10
	}
	p := &populator{h: h, pc: pc, r: NewRand(pc.Seed), reservoir: NewRand(pc.Seed ^ 0xa0761d6478bd642f),
		all: h.stack(), roots: h.cfg.Roots,
		majorTarget: int64(pc.MajorFill * float64(h.cfg.MajorHeap)),
		losTarget:   int64(pc.LOSFill * float64(h.cfg.LOS))}
	if pc.Roots > 0 {
		p.roots = min(pc.Roots, p.roots)
	}
	clear(pc.Sample)
	return p
}

// step builds one object, large or small so that both spaces fill at the
// same pace, and returns its size in bytes (0 when the LOS turned out full).
func (p *populator) step() (int64, error) {
	large := p.losDone < p.losTarget &&
		(p.majorDone >= p.majorTarget || float64(p.losDone)/float64(p.losTarget) <= float64(p.majorDone)/float64(p.majorTarget))
	if large {
		return p.large()
	}
	return p.small()
}

func (p *populator) large() (int64, error) {
	h, r := p.h, p.r
	size := MaxSmallObject + 8 + 8*r.Intn((p.pc.MaxLargeObject-MaxSmallObject)/8)
	nrefs := (size - HeaderSize) / SlotSize / 2
	obj, err := h.AllocLOS(size, nrefs)
	if errors.Is(err, ErrLOSFull) {
		p.losTarget = p.losDone // fragmentation: stop filling the LOS
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("populating the LOS: %w", err)
	}
	p.losDone += roundUp(int64(size), PageSize)
	p.attach(obj, nrefs)
	return int64(size), nil
}

func (p *populator) small() (int64, error) {
	size, nrefs := p.r.SmallShape()
	obj, err := p.h.AllocMajor(size, nrefs)
	if err != nil {
		return 0, fmt.Errorf("populating the major heap: %w", err)
	}
	_, stride, _ := SizeClass(size)
	p.majorDone += int64(stride)
	p.attach(obj, nrefs)
	return int64(size), nil
}

// nilSlot returns a nil slot of a random earlier object, or Nil. An object
// found full is dropped from the candidates.
func (p *populator) nilSlot() Addr {
	h, r := p.h, p.r
	for range 8 {
		if p.n == 0 {
			return Nil
		}
		j := r.Intn(p.n)
		o := p.all[j]
		k := h.NumRefs(o)
		for q, s := 0, r.Intn(k); q < min(k, 8); q, s = q+1, (s+1)%k {
			if h.Ref(o, s) == Nil {
				return SlotAddr(o, s)
			}
		}
		if k <= 8 {
			p.n--
			p.all[j] = p.all[p.n]
		}
	}
	return Nil
}

// attach makes obj reachable (a root, or a nil slot of an earlier object),
// gives a fifth of its slots cross links, and lists it as a future parent.
func (p *populator) attach(obj Addr, nrefs int) {
	h, r := p.h, p.r
	if p.nextRoot < p.roots {
		h.WriteRoot(p.nextRoot, obj)
		p.nextRoot++
	} else if slot := p.nilSlot(); slot != Nil {
		h.storeSlot(slot, obj)
	} else {
		return // rare: left unreachable, garbage for the first major collection
	}
	for s := 0; s < nrefs && p.n > 0; s++ {
		if r.Intn(5) == 0 {
			h.storeSlot(SlotAddr(obj, s), p.all[r.Intn(p.n)])
		}
	}
	if nrefs == 0 {
		return
	}
	if sample := p.pc.Sample; p.seen < len(sample) {
		sample[p.seen] = obj
	} else if j := p.reservoir.Intn(p.seen + 1); j < len(sample) {
		sample[j] = obj
	}
	p.seen++
	p.all[p.n] = obj
	p.n++
}
