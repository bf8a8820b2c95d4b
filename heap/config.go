package heap

import (
	"errors"
	"fmt"

	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/setting"
)

// Sentinel errors; every error the package returns wraps one of them and
// names the setting involved, so callers can test with errors.Is and users
// know what to change.
var (
	// ErrInvalidConfig is setting.ErrInvalid, wrapped by every
	// *setting.Error: a Config setting is out of range (the error names it).
	ErrInvalidConfig = setting.ErrInvalid
	// ErrUnsupported: the platform cannot map anonymous memory (non-Linux).
	ErrUnsupported = errors.New("anonymous mmap arenas are supported only on Linux")
	// ErrMajorHeapFull: no block is left for a major-heap allocation; raise MajorHeap.
	ErrMajorHeapFull = errors.New("major heap full (raise the major heap size)")
	// ErrLOSFull: no run of pages is left for a large object; raise LOS.
	ErrLOSFull = errors.New("large-object space full (raise the LOS size)")
	// ErrNurseryFull: the nursery has no room for the object; collect first.
	ErrNurseryFull = errors.New("nursery full")
	// ErrNurseryNotEmpty: MajorCollect needs an empty nursery; finish the
	// minor collection (ResetNursery) first.
	ErrNurseryNotEmpty = errors.New("nursery not empty (run a minor collection first)")
	// ErrBadObject: a requested object size or slot count is impossible.
	ErrBadObject = errors.New("bad object shape")
	// ErrTooLarge: the heap is larger than this machine's memory; lower MajorHeap or LOS.
	ErrTooLarge = errors.New("heap larger than this machine's memory (lower the major heap or LOS size)")
	// ErrClosed: the heap was closed.
	ErrClosed = errors.New("heap closed")
	// ErrVerify: the verifier found a broken heap (wrapped by the specific cause).
	ErrVerify = errors.New("heap verification failed")
)

// Layout constants. They follow SGen, Mono's generational collector
// (mono/mono: mono/sgen/sgen-marksweep.c, sgen-cardtable.h, sgen-conf.h).
const (
	BlockSize      = 16 << 10 // major-heap block (MS_BLOCK_SIZE)
	CardSize       = 512      // bytes per card (CARD_BITS = 9)
	CardsPerBlock  = BlockSize / CardSize
	PageSize       = 4096 // LOS objects are page-aligned
	MaxSmallObject = 8000 // SGEN_MAX_SMALL_OBJ_SIZE: larger objects go to the LOS
	HeaderSize     = 16   // forwarding word + size/slot-count word
	SlotSize       = 8

	// DefaultNursery is SGen's default nursery (SGEN_DEFAULT_NURSERY_SIZE).
	DefaultNursery = 4 << 20
	// MinNursery is the smallest nursery accepted: big enough for any small object.
	MinNursery = 64 << 10
	// DefaultRoots is the default number of write-barrier root slots.
	DefaultRoots = 4096
	// MaxRoots is the largest number of root slots accepted (16 Mi slots,
	// 128 MiB of roots).
	MaxRoots = 1 << 24
	// maxAddressSpace caps a heap's total reservation (64 TiB), far below
	// what a 64-bit kernel could map but above any machine's memory.
	maxAddressSpace = 1 << 46
)

// Config sizes a heap. All sizes are in bytes.
type Config struct {
	// MajorHeap is the major heap's size: a positive multiple of BlockSize.
	MajorHeap int64
	// LOS is the large-object space's size: a positive multiple of PageSize.
	LOS int64
	// Nursery is the nursery's size: a multiple of PageSize ≥ MinNursery.
	Nursery int64
	// Roots is the number of write-barrier root slots (1..MaxRoots).
	Roots int
	// Seed determines every payload byte written by the heap.
	Seed uint64
}

// DefaultConfig is the seed experiment's heap: a 2.5 GiB major heap, a
// 1 GiB LOS, SGen's 4 MiB nursery and DefaultRoots root slots.
func DefaultConfig() Config {
	return Config{
		MajorHeap: 2560 << 20,
		LOS:       1 << 30,
		Nursery:   DefaultNursery,
		Roots:     DefaultRoots,
		Seed:      1,
	}
}

// The keys of Config's settings (package setting): the names that errors,
// reports and flags give them.
const (
	KeyMajorHeap = "major_heap"
	KeyLOS       = "los"
	KeyNursery   = "nursery"
	KeyRoots     = "roots"
)

// badSize refuses the size v of the setting key.
func badSize(key string, v int64, want string) error {
	return &setting.Error{Field: key, Value: bytesize.Format(v), Want: want}
}

// Validate reports the first setting that cannot be used as a
// *setting.Error (which wraps ErrInvalidConfig), by its key (KeyMajorHeap
// and so on). It depends on c alone; New also checks that the heap fits
// this machine (CheckMemory).
func (c Config) Validate() error {
	switch {
	case c.MajorHeap <= 0:
		return badSize(KeyMajorHeap, c.MajorHeap, "> 0")
	case c.MajorHeap%BlockSize != 0:
		return badSize(KeyMajorHeap, c.MajorHeap, fmt.Sprintf("a multiple of %s (the block size)", bytesize.Format(BlockSize)))
	case c.LOS <= 0:
		return badSize(KeyLOS, c.LOS, "> 0")
	case c.LOS%PageSize != 0:
		return badSize(KeyLOS, c.LOS, fmt.Sprintf("a multiple of %s (the page size)", bytesize.Format(PageSize)))
	case c.Nursery < MinNursery:
		return badSize(KeyNursery, c.Nursery, fmt.Sprintf("≥ %s", bytesize.Format(MinNursery)))
	case c.Nursery%PageSize != 0:
		return badSize(KeyNursery, c.Nursery, fmt.Sprintf("a multiple of %s (the page size)", bytesize.Format(PageSize)))
	case c.Roots < 1 || c.Roots > MaxRoots:
		return &setting.Error{Field: KeyRoots, Value: fmt.Sprint(c.Roots), Want: fmt.Sprintf("1..%d", MaxRoots)}
	}
	return c.validateTotal()
}

// validateTotal bounds each space and their sum by the largest reservation
// (maxAddressSpace). The sum is blamed on the largest space, the one whose
// lowering helps most.
func (c Config) validateTotal() error {
	// The largest space is over 21TiB: a multiple of 1/8 TiB is exact enough.
	return c.fit(maxAddressSpace, 1<<37, "≤ %s", "are at most %s")
}

// CheckMemory refuses a heap whose spaces together are more than
// available bytes (when available > 0), blaming the largest space, with a
// *setting.Error that also wraps ErrTooLarge: such a heap could not be
// filled. New checks it against AvailableMemory; a front end may call it
// first, to refuse a configuration before any other work.
func (c Config) CheckMemory(available int64) error {
	if available <= 0 {
		return nil
	}
	// Rounded so that the bounds read well: 1/8 GiB above a GiB (which
	// bytesize.Format writes with three decimals at most), else whole MiB.
	round := int64(1 << 20)
	if available >= 1<<30 {
		round = 1 << 27
	}
	limit := available / round * round
	err := c.fit(limit, round, "at most %s (this machine's available memory)", "fit in this machine's available memory (%s)")
	var se *setting.Error
	if errors.As(err, &se) {
		se.Err = ErrTooLarge
	}
	return err
}

// fit refuses a space above limit (single states the bound) and, blaming
// the largest space, spaces that add up to more (sum states the bound);
// the size it suggests for the largest is rounded down to a multiple of
// round.
func (c Config) fit(limit, round int64, single, sum string) error {
	spaces := []struct {
		key string
		v   int64
	}{{KeyMajorHeap, c.MajorHeap}, {KeyLOS, c.LOS}, {KeyNursery, c.Nursery}}
	largest := spaces[0]
	for _, s := range spaces {
		if s.v > limit {
			return badSize(s.key, s.v, fmt.Sprintf(single, bytesize.Format(limit)))
		}
		if s.v > largest.v {
			largest = s
		}
	}
	if total := c.MajorHeap + c.LOS + c.Nursery; total > limit { // each ≤ limit: no overflow
		most := (largest.v - (total - limit)) / round * round
		return badSize(largest.key, largest.v, fmt.Sprintf("≤ %s, so that the major heap, LOS and nursery together "+sum,
			bytesize.Format(max(most, 0)), bytesize.Format(limit)))
	}
	return nil
}
