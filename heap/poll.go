package heap

import (
	"context"
	"errors"
)

// ErrInterrupted is returned by MajorCollect, Verify and Populate on a heap
// whose major collection was interrupted by its context: the mark bits and
// free lists are half-built, so the heap can only be closed.
var ErrInterrupted = errors.New("heap unusable after an interrupted major collection (close it)")

// pollBytes is how much heap memory a long phase (population, a major
// collection, verification) walks between two looks at its context: a
// millisecond of work or less, so a cancellation is seen within
// milliseconds, while one atomic load per MiB walked costs nothing
// measurable.
const pollBytes = 1 << 20

// objectCost is the work an object costs a phase beyond its bytes (a header
// read, a likely cache miss), in bytes of walking, so that a phase over
// many tiny objects still polls about once a millisecond.
const objectCost = 64

// poller tells a long phase when to look at its context.
type poller struct {
	ctx  context.Context
	left int64
}

func newPoller(ctx context.Context) poller { return poller{ctx: ctx, left: pollBytes} }

// add counts n bytes of work and, once pollBytes have accumulated since the
// last look, returns the context's error (nil while it has not ended).
func (p *poller) add(n int64) error {
	if p.left -= n; p.left > 0 {
		return nil
	}
	p.left = pollBytes
	return p.ctx.Err()
}

// usable reports why the heap cannot run a whole-heap phase, or nil.
func (h *Heap) usable() error {
	switch {
	case h.closed:
		return ErrClosed
	case h.interrupted:
		return ErrInterrupted
	}
	return nil
}
