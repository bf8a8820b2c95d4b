package heap

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error the package returns wraps one of them and
// names the setting involved, so callers can test with errors.Is and users
// know what to change.
var (
	// ErrInvalidConfig: a Config field is out of range (the message names it).
	ErrInvalidConfig = errors.New("invalid heap configuration")
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

// Layout constants. They follow SGen (research/sgen.md §3).
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
	// Roots is the number of write-barrier root slots (≥ 1).
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

// Validate reports the first field that cannot be used, wrapping
// ErrInvalidConfig; the message names the field and the required value.
func (c Config) Validate() error {
	bad := func(field string, v int64, want string) error {
		return fmt.Errorf("%w: %s = %d, want %s", ErrInvalidConfig, field, v, want)
	}
	switch {
	case c.MajorHeap <= 0:
		return bad("MajorHeap", c.MajorHeap, "> 0")
	case c.MajorHeap%BlockSize != 0:
		return bad("MajorHeap", c.MajorHeap, fmt.Sprintf("a multiple of the %d-byte block size", BlockSize))
	case c.LOS <= 0:
		return bad("LOS", c.LOS, "> 0")
	case c.LOS%PageSize != 0:
		return bad("LOS", c.LOS, fmt.Sprintf("a multiple of the %d-byte page size", PageSize))
	case c.Nursery < MinNursery:
		return bad("Nursery", c.Nursery, fmt.Sprintf("≥ %d", MinNursery))
	case c.Nursery%PageSize != 0:
		return bad("Nursery", c.Nursery, fmt.Sprintf("a multiple of the %d-byte page size", PageSize))
	case c.Roots < 1:
		return bad("Roots", int64(c.Roots), "≥ 1")
	case c.Roots > 1<<24:
		return bad("Roots", int64(c.Roots), "≤ 16777216")
	case c.MajorHeap > maxAddressSpace:
		return bad("MajorHeap", c.MajorHeap, fmt.Sprintf("≤ %d", int64(maxAddressSpace)))
	case c.LOS > maxAddressSpace:
		return bad("LOS", c.LOS, fmt.Sprintf("≤ %d", int64(maxAddressSpace)))
	case c.Nursery > maxAddressSpace:
		return bad("Nursery", c.Nursery, fmt.Sprintf("≤ %d", int64(maxAddressSpace)))
	case c.MajorHeap+c.LOS+c.Nursery > maxAddressSpace:
		return fmt.Errorf("%w: MajorHeap + LOS + Nursery = %d bytes, want ≤ %d",
			ErrInvalidConfig, c.MajorHeap+c.LOS+c.Nursery, int64(maxAddressSpace))
	}
	return nil
}
