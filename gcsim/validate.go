package gcsim

import (
	"fmt"
	"math"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

func badValue(key string, v any, want string) error {
	return &setting.Error{Field: key, Value: fmt.Sprint(v), Want: want}
}

func badSize(key string, v int64, want string) error {
	return &setting.Error{Field: key, Value: bytesize.Format(v), Want: want}
}

// Validate reports the first setting that cannot be used as a
// *setting.Error (wrapping ErrInvalidConfig): a setting out of its range
// (the heap's by heap.Config.Validate), or a heap too small for the
// simulation to run (see Config.MajorHeap). It depends on c alone: New
// also refuses a heap larger than this machine's available memory
// (heap.Config.CheckMemory, through heap.New).
func (c Config) Validate() error {
	if c.Roots < 0 || c.Roots > 0 && c.Roots < 64 || c.Roots > heap.MaxRoots { // more than heap's 1: Roots/64 hold the mutator's large objects
		return badValue(heap.KeyRoots, c.Roots, fmt.Sprintf("0 (default) or 64..%d", heap.MaxRoots))
	}
	for _, check := range []func() error{c.Heap().Validate, c.validatePool, c.Mutator.validate, c.validateMajorRoom, c.validateLOSRoom} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) validatePool() error {
	if c.Workers < 1 || c.Workers > workerpool.MaxWorkers {
		return badValue(KeyWorkers, c.Workers, fmt.Sprintf("1..%d", workerpool.MaxWorkers))
	}
	if _, err := c.Backend.MarshalText(); err != nil { // only a named value marshals
		return badValue(KeyBackend, c.Backend, enum.Or(workerpool.BackendNames()))
	}
	if c.Backend == workerpool.Native && !workerpool.NativeAvailable {
		return badValue(KeyBackend, c.Backend, "threads or goroutines (native needs a build with cgo, on Linux)")
	}
	if _, err := c.Mutex.MarshalText(); err != nil {
		return badValue(KeyMutex, c.Mutex, enum.Or(workerpool.MutexKindNames()))
	}
	if _, err := c.Wake.MarshalText(); err != nil {
		return badValue(KeyWake, c.Wake, enum.Or(workerpool.WakePolicyNames()))
	}
	return c.validateCombination()
}

// validateCombination refuses the pool options workerpool would refuse
// for their combination (workerpool.Options.Validate, the rules' one
// owner), each value being valid alone. The setting blamed is the wake
// policy when another policy would be accepted (the Native backend has no
// Spin), else the backend.
func (c Config) validateCombination() error {
	err := c.PoolOptions().Validate()
	if err == nil {
		return nil
	}
	var ok []string
	for _, w := range workerpool.WakePolicyNames() {
		o := c
		o.Wake, _ = workerpool.ParseWakePolicy(w)
		if o.PoolOptions().Validate() == nil {
			ok = append(ok, w)
		}
	}
	if len(ok) > 0 {
		return &setting.Error{Field: KeyWake, Value: c.Wake.String(), Err: err,
			Want: fmt.Sprintf("%s on the %v backend", enum.Or(ok), c.Backend)}
	}
	return &setting.Error{Field: KeyBackend, Value: c.Backend.String(), Want: fmt.Sprintf("another backend (%v)", err), Err: err}
}

func (m MutatorConfig) validate() error {
	bad := func(key string, v any, want string) error { return badValue(KeyMutator+"."+key, v, want) }
	for _, f := range []struct {
		key string
		v   float64
	}{{"root_share", m.RootShare}, {"los_share", m.LOSShare}, {"nursery_links", m.NurseryLinks},
		{"old_links", m.OldLinks}, {"major_gc_free", m.MajorGCFree}} {
		if !(f.v >= 0 && f.v <= 1) {
			return bad(f.key, f.v, "0 ≤ value ≤ 1")
		}
	}
	switch {
	case !(m.MajorFill >= 0 && m.MajorFill <= maxFill):
		return bad("major_fill", m.MajorFill, fmt.Sprintf("0 ≤ value ≤ %g", maxFill))
	case !(m.LOSFill >= 0 && m.LOSFill <= maxFill):
		return bad("los_fill", m.LOSFill, fmt.Sprintf("0 ≤ value ≤ %g", maxFill))
	case m.BarrierStores < 0 || m.BarrierStores > maxUndo:
		return bad("barrier_stores", m.BarrierStores, fmt.Sprintf("0..%d", maxUndo))
	case m.Lifetime < 1 || m.Lifetime > 1<<16:
		return bad("lifetime", m.Lifetime, "1..65536")
	case int64(m.BarrierStores)*int64(m.Lifetime) > maxUndo:
		return bad("lifetime", m.Lifetime, fmt.Sprintf("1..%d for mutator.barrier_stores %d (the mutator remembers "+
			"barrier_stores × lifetime ≤ %d slots)", maxUndo/max(1, m.BarrierStores), m.BarrierStores, maxUndo))
	case m.Published < 1:
		return bad("published", m.Published, "≥ 1")
	case m.RootShare+m.LOSShare > 1:
		return bad("los_share", m.LOSShare, fmt.Sprintf("0..%g, so that root_share + los_share ≤ 1", 1-m.RootShare))
	case m.NurseryLinks+m.OldLinks > 1:
		return bad("old_links", m.OldLinks, fmt.Sprintf("0..%g, so that nursery_links + old_links ≤ 1", 1-m.NurseryLinks))
	case m.LargeObjects < 0 || m.LargeObjects > 1<<16:
		return bad("large_objects", m.LargeObjects, "0..65536")
	case m.MaxLargeObject <= heap.MaxSmallObject+heap.PageSize || m.MaxLargeObject > 1<<30:
		return bad("max_large_object", m.MaxLargeObject, fmt.Sprintf("%d..%d", heap.MaxSmallObject+heap.PageSize+1, 1<<30))
	}
	return nil
}

const (
	// maxFill bounds Mutator.MajorFill and LOSFill, below heap.MaxFill so
	// that the mutator and promotion have room.
	maxFill = 0.9
	// maxUndo bounds the mutator's ring of filled slots (BarrierStores ×
	// Lifetime entries of 16 bytes: 256 MiB).
	maxUndo = 1 << 24
	// populateOverhead is how many blocks heap.Populate uses per block of
	// objects it is asked for: the blocks' tails that no object of their
	// class fits. With heap.Rand.SmallShape's mix (seeded, so the same for
	// every run) those tails are 1.25% to 1.3% of 1 MiB to 256 MiB heaps
	// filled to 0.3..0.9, plus at most 22 blocks, which the partly filled
	// block per size class (heap.NumSizeClasses) covers.
	populateOverhead = 1.015
)

// reserveBlocks is the fewest empty blocks a collection is started with: a
// whole nursery's worth of survivors plus a block per promoter (one per
// worker and the collecting goroutine's). (The true worst case adds a partly
// used block per size class per promoter, which would reserve most of a
// small heap; if it ever happens, promotion fails with
// heap.ErrMajorHeapFull.)
func (c Config) reserveBlocks() int64 {
	return c.Nursery/heap.BlockSize + int64(c.Workers) + 1
}

// freeAfterPopulate estimates how many empty blocks a major heap of total
// blocks has once heap.Populate has filled it to MajorFill.
func (c Config) freeAfterPopulate(total int64) int64 {
	used := int64(math.Ceil(c.Mutator.MajorFill*float64(total)*populateOverhead)) + int64(heap.NumSizeClasses)
	return total - used
}

// validateMajorRoom requires the major heap, once populated, to have twice
// reserveBlocks empty: with less, the Sim would run a major collection before
// every minor one (Sim.majorNeeded) or fail at once for lack of room. The
// nursery is blamed when it alone takes more than the workers do, and a
// smaller one would fit; the major heap otherwise.
func (c Config) validateMajorRoom() error {
	total := c.MajorHeap / heap.BlockSize
	free := c.freeAfterPopulate(total)
	if free >= 2*c.reserveBlocks() {
		return nil
	}
	minMajor := c.minMajorHeap()
	perWorker := int64(c.Workers) + 1
	maxNursery := roundDownSize((free/2 - perWorker) * heap.BlockSize)
	if c.Nursery/heap.BlockSize > perWorker && maxNursery >= heap.MinNursery {
		return badSize(heap.KeyNursery, c.Nursery, fmt.Sprintf("at most %s for a %s major heap at mutator.major_fill %g "+
			"with %d workers (or major_heap at least %s)", bytesize.Format(maxNursery), bytesize.Format(c.MajorHeap),
			c.Mutator.MajorFill, c.Workers, bytesize.Format(minMajor)))
	}
	return badSize(heap.KeyMajorHeap, c.MajorHeap, fmt.Sprintf("at least %s for %d workers and a %s nursery at "+
		"mutator.major_fill %g", bytesize.Format(minMajor), c.Workers, bytesize.Format(c.Nursery), c.Mutator.MajorFill))
}

// minMajorHeap is the smallest major heap, in whole MiB, that
// validateMajorRoom accepts for the other settings.
func (c Config) minMajorHeap() int64 {
	need := 2 * c.reserveBlocks()
	total := int64(float64(need+int64(heap.NumSizeClasses)) / (1 - c.Mutator.MajorFill*populateOverhead))
	for c.freeAfterPopulate(total) < need { // the estimate's rounding
		total++
	}
	return roundUpMiB(total * heap.BlockSize)
}

// validateLOSRoom requires the LOS, once populated, to hold a large object
// per handle root (Roots/64; the mutator replaces each handle's object), one
// being allocated, and the one heap.Populate may place past its target.
func (c Config) validateLOSRoom() error {
	roots := c.Heap().Roots
	objects := int64(max(1, roots/64)) + 2
	need := objects * roundUp(int64(c.Mutator.MaxLargeObject), heap.PageSize)
	if float64(c.LOS)*(1-c.Mutator.LOSFill) >= float64(need) {
		return nil
	}
	least := roundUpMiB(int64(math.Ceil(float64(need) / (1 - c.Mutator.LOSFill))))
	return badSize(heap.KeyLOS, c.LOS, fmt.Sprintf("at least %s for mutator.los_fill %g and %d large objects of up to %s "+
		"(one per roots/64 handle root, and two more)", bytesize.Format(least), c.Mutator.LOSFill, objects,
		bytesize.Format(int64(c.Mutator.MaxLargeObject))))
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }

// roundUpMiB rounds a suggested size up to whole MiB, which reads better
// and is a multiple of the block and page sizes.
func roundUpMiB(n int64) int64 { return roundUp(n, 1<<20) }

// roundDownSize rounds a suggested size down to whole MiB, or below 1MiB to
// whole pages.
func roundDownSize(n int64) int64 {
	if n >= 1<<20 {
		return n &^ (1<<20 - 1)
	}
	return n &^ (heap.PageSize - 1)
}
