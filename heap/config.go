package heap

import (
	"errors"
	"fmt"
	"strconv"
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

// ConfigError names a Config or PopulateConfig field that cannot be used,
// the value it was given and what would be accepted. Every error Validate
// returns is one; it wraps ErrInvalidConfig.
type ConfigError struct {
	// Field is the field's name in Config ("MajorHeap", "LOS", "Nursery",
	// "Roots"), or in PopulateConfig with that prefix ("PopulateConfig.MajorFill").
	Field string
	// Value is the value as given: sizes as FormatSize writes them, counts
	// and fractions as numbers.
	Value string
	// Want says what would be accepted, with the bound as a number
	// ("a multiple of 16KiB (the block size)", "≤ 64TiB").
	Want string
}

// Error reads "invalid heap configuration: Field = Value, want Want".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: %s = %s, want %s", ErrInvalidConfig, e.Field, e.Value, e.Want)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Validate reports the first field that cannot be used as a *ConfigError
// (which wraps ErrInvalidConfig).
func (c Config) Validate() error {
	size := func(field string, v int64, want string) error {
		return &ConfigError{Field: field, Value: FormatSize(v), Want: want}
	}
	switch {
	case c.MajorHeap <= 0:
		return size("MajorHeap", c.MajorHeap, "> 0")
	case c.MajorHeap%BlockSize != 0:
		return size("MajorHeap", c.MajorHeap, fmt.Sprintf("a multiple of %s (the block size)", FormatSize(BlockSize)))
	case c.LOS <= 0:
		return size("LOS", c.LOS, "> 0")
	case c.LOS%PageSize != 0:
		return size("LOS", c.LOS, fmt.Sprintf("a multiple of %s (the page size)", FormatSize(PageSize)))
	case c.Nursery < MinNursery:
		return size("Nursery", c.Nursery, fmt.Sprintf("≥ %s", FormatSize(MinNursery)))
	case c.Nursery%PageSize != 0:
		return size("Nursery", c.Nursery, fmt.Sprintf("a multiple of %s (the page size)", FormatSize(PageSize)))
	case c.Roots < 1 || c.Roots > MaxRoots:
		return &ConfigError{Field: "Roots", Value: fmt.Sprint(c.Roots), Want: fmt.Sprintf("1..%d", MaxRoots)}
	}
	return c.validateTotal()
}

// validateTotal bounds each space and their sum by the largest reservation
// (maxAddressSpace). The sum is blamed on the largest space, the one whose
// lowering helps most.
func (c Config) validateTotal() error {
	spaces := []struct {
		field string
		v     int64
	}{{"MajorHeap", c.MajorHeap}, {"LOS", c.LOS}, {"Nursery", c.Nursery}}
	largest := spaces[0]
	for _, s := range spaces {
		if s.v > maxAddressSpace {
			return &ConfigError{Field: s.field, Value: FormatSize(s.v), Want: fmt.Sprintf("≤ %s", FormatSize(maxAddressSpace))}
		}
		if s.v > largest.v {
			largest = s
		}
	}
	if total := c.MajorHeap + c.LOS + c.Nursery; total > maxAddressSpace { // each ≤ 2^46: no overflow
		// The largest is over 21TiB: a multiple of 1/8 TiB is exact enough.
		most := (largest.v - (total - maxAddressSpace)) &^ (1<<37 - 1)
		return &ConfigError{Field: largest.field, Value: FormatSize(largest.v),
			Want: fmt.Sprintf("≤ %s, so that MajorHeap + LOS + Nursery is at most %s",
				FormatSize(most), FormatSize(maxAddressSpace))}
	}
	return nil
}

// FormatSize writes a byte count exactly, in the largest binary unit that
// shows it with at most three decimals ("16KiB", "2.5GiB"), otherwise in
// bytes ("1000B"): the spelling gcbench's size flags accept.
func FormatSize(n int64) string {
	units := []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n < u.mult && n > -u.mult {
			continue
		}
		for decimals, scale := 0, int64(1); decimals <= 3; decimals, scale = decimals+1, scale*10 {
			if n%u.mult*scale%u.mult == 0 {
				return strconv.FormatFloat(float64(n)/float64(u.mult), 'f', decimals, 64) + u.name
			}
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
