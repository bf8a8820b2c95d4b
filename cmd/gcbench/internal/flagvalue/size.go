package flagvalue

import (
	"fmt"

	"github.com/dustin/go-humanize"
	"github.com/gcbench/gcbench/internal/bytesize"
)

// Size is a flag holding a byte size, in bytesize's spelling ("2.5GiB",
// "512MiB").
type Size struct {
	bytes  *int64
	memory int64
	text   string // the last accepted argument, as typed
}

// NewSize returns a size flag stored in *p, default def. If memory > 0
// (the machine's available memory, heap.AvailableMemory), a larger size
// is refused while parsing, so that the error names the flag and the
// value rather than failing the allocation later.
func NewSize(p *int64, def, memory int64) *Size {
	*p = def
	return &Size{bytes: p, memory: memory}
}

// Set stores the size s spells, or returns bytesize's reason it is not
// one, or that it is more than the available memory.
func (v *Size) Set(s string) error {
	n, err := bytesize.Parse(s)
	if err != nil {
		return err
	}
	if v.memory > 0 && n > v.memory {
		return fmt.Errorf("%w is more than this machine's available memory (%s)", bytesize.ErrInvalid, humanize.IBytes(uint64(v.memory)))
	}
	*v.bytes, v.text = n, s
	return nil
}

// Text returns the last accepted argument as the user typed it ("" until
// one is), so that a later check of the size, a configuration's, can
// quote the user's own words.
func (v *Size) Text() string { return v.text }

// String returns the size as bytesize.Format spells it.
func (v *Size) String() string { return bytesize.Format(*v.bytes) }

// Type returns "size", the word --help shows for the argument.
func (v *Size) Type() string { return "size" }
