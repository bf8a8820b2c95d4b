package gcsim

import (
	"errors"
	"fmt"
	"math"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/workerpool"
)

// ConfigError names a setting that cannot be used, the value it was given
// and what would be accepted, so that a front end can point at the flag
// that set it without parsing messages. Every error Validate returns is
// one, and so are Compare's errors about its options; it wraps
// ErrInvalidConfig.
type ConfigError struct {
	// Field is the setting's path in Config ("MajorHeap", "Workers",
	// "Mutator.MajorFill"), or in CompareOptions with that prefix
	// ("CompareOptions.GCs"). When a combination of settings fails, Field
	// is the one to change, and Want names the others.
	Field string
	// Value is the value as given: sizes as heap.FormatSize writes them
	// ("64MiB", "1000B"), counts and fractions as numbers.
	Value string
	// Want says what would be accepted, with the bound as a number in the
	// field's units ("1..4096", "at least 364MiB for 4096 workers, …").
	Want string
}

// Error reads "invalid gcsim configuration: Field = Value, want Want".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: %s = %s, want %s", ErrInvalidConfig, e.Field, e.Value, e.Want)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

func badValue(field string, v any, want string) error {
	return &ConfigError{Field: field, Value: fmt.Sprint(v), Want: want}
}

func badSize(field string, v int64, want string) error {
	return &ConfigError{Field: field, Value: heap.FormatSize(v), Want: want}
}

// Validate reports the first setting that cannot be used as a *ConfigError
// (wrapping ErrInvalidConfig): a field out of its range, or a heap too small
// for the simulation to run (see Config.MajorHeap).
func (c Config) Validate() error {
	switch {
	case c.Roots < 0:
		return badValue("Roots", c.Roots, fmt.Sprintf("0 (default) or 64..%d", heap.MaxRoots))
	case c.Roots > 0 && c.Roots < 64:
		return badValue("Roots", c.Roots, fmt.Sprintf("0 (default) or 64..%d", heap.MaxRoots))
	}
	if err := fromHeap(c.heapConfig().Validate()); err != nil {
		return err
	}
	if err := c.validatePool(); err != nil {
		return err
	}
	if err := c.Mutator.validate(); err != nil {
		return err
	}
	if err := c.validateMajorRoom(); err != nil {
		return err
	}
	return c.validateLOSRoom()
}

// fromHeap restates a heap configuration error in Config's terms: the heap's
// fields (MajorHeap, LOS, Nursery, Roots) have the same names here.
func fromHeap(err error) error {
	var he *heap.ConfigError
	if !errors.As(err, &he) {
		return err
	}
	want := he.Want
	if he.Field == "Roots" {
		want = fmt.Sprintf("0 (default) or 64..%d", heap.MaxRoots)
	}
	return &ConfigError{Field: he.Field, Value: he.Value, Want: want}
}

func (c Config) validatePool() error {
	if c.Workers < 1 || c.Workers > workerpool.MaxWorkers {
		return badValue("Workers", c.Workers, fmt.Sprintf("1..%d", workerpool.MaxWorkers))
	}
	if _, err := workerpool.ParseBackend(c.Backend.String()); err != nil {
		return badValue("Backend", c.Backend, "goroutines, threads or native")
	}
	if c.Backend == workerpool.Native && !workerpool.NativeAvailable {
		return badValue("Backend", c.Backend, "threads or goroutines (native needs a build with cgo, on Linux)")
	}
	if _, err := workerpool.ParseMutexKind(c.Mutex.String()); err != nil {
		return badValue("Mutex", c.Mutex, "normal, pi or adaptive")
	}

	if _, err := workerpool.ParseWakePolicy(c.Wake.String()); err != nil {
		return badValue("Wake", c.Wake, "broadcast, signal, targeted or spin")
	}
	return nil
}

func (m MutatorConfig) validate() error {
	bad := func(field string, v any, want string) error { return badValue("Mutator."+field, v, want) }
	for _, f := range []struct {
		name string
		v    float64
	}{{"RootShare", m.RootShare}, {"LOSShare", m.LOSShare}, {"NurseryLinks", m.NurseryLinks},
		{"OldLinks", m.OldLinks}, {"MajorGCFree", m.MajorGCFree}} {
		if !(f.v >= 0 && f.v <= 1) {
			return bad(f.name, f.v, "0 ≤ value ≤ 1")
		}
	}
	switch {
	case !(m.MajorFill >= 0 && m.MajorFill <= maxFill):
		return bad("MajorFill", m.MajorFill, fmt.Sprintf("0 ≤ value ≤ %g", maxFill))
	case !(m.LOSFill >= 0 && m.LOSFill <= maxFill):
		return bad("LOSFill", m.LOSFill, fmt.Sprintf("0 ≤ value ≤ %g", maxFill))
	case m.BarrierStores < 0 || m.BarrierStores > maxUndo:
		return bad("BarrierStores", m.BarrierStores, fmt.Sprintf("0..%d", maxUndo))
	case m.Lifetime < 1 || m.Lifetime > 1<<16:
		return bad("Lifetime", m.Lifetime, "1..65536")
	case int64(m.BarrierStores)*int64(m.Lifetime) > maxUndo:
		return bad("Lifetime", m.Lifetime, fmt.Sprintf("1..%d for Mutator.BarrierStores %d (the mutator remembers "+
			"BarrierStores × Lifetime ≤ %d slots)", maxUndo/max(1, m.BarrierStores), m.BarrierStores, maxUndo))
	case m.Published < 1:
		return bad("Published", m.Published, "≥ 1")
	case m.RootShare+m.LOSShare > 1:
		return bad("LOSShare", m.LOSShare, fmt.Sprintf("0..%g, so that RootShare + LOSShare ≤ 1", 1-m.RootShare))
	case m.NurseryLinks+m.OldLinks > 1:
		return bad("OldLinks", m.OldLinks, fmt.Sprintf("0..%g, so that NurseryLinks + OldLinks ≤ 1", 1-m.NurseryLinks))
	case m.LargeObjects < 0 || m.LargeObjects > 1<<16:
		return bad("LargeObjects", m.LargeObjects, "0..65536")
	case m.MaxLargeObject <= heap.MaxSmallObject+heap.PageSize || m.MaxLargeObject > 1<<30:
		return bad("MaxLargeObject", m.MaxLargeObject, fmt.Sprintf("%d..%d", heap.MaxSmallObject+heap.PageSize+1, 1<<30))
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
		return badSize("Nursery", c.Nursery, fmt.Sprintf("at most %s for a %s major heap at Mutator.MajorFill %g "+
			"with %d workers (or MajorHeap at least %s)", heap.FormatSize(maxNursery), heap.FormatSize(c.MajorHeap),
			c.Mutator.MajorFill, c.Workers, heap.FormatSize(minMajor)))
	}
	return badSize("MajorHeap", c.MajorHeap, fmt.Sprintf("at least %s for %d workers and a %s nursery at "+
		"Mutator.MajorFill %g", heap.FormatSize(minMajor), c.Workers, heap.FormatSize(c.Nursery), c.Mutator.MajorFill))
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
	roots := c.heapConfig().Roots
	objects := int64(max(1, roots/64)) + 2
	need := objects * roundUp(int64(c.Mutator.MaxLargeObject), heap.PageSize)
	if float64(c.LOS)*(1-c.Mutator.LOSFill) >= float64(need) {
		return nil
	}
	least := roundUpMiB(int64(math.Ceil(float64(need) / (1 - c.Mutator.LOSFill))))
	return badSize("LOS", c.LOS, fmt.Sprintf("at least %s for Mutator.LOSFill %g and %d large objects of up to %s "+
		"(one per Roots/64 handle root, and two more)", heap.FormatSize(least), c.Mutator.LOSFill, objects,
		heap.FormatSize(int64(c.Mutator.MaxLargeObject))))
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
