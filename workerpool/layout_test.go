package workerpool

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// The handoff line must start a cache line of its own relative to the
// worker's start, and a worker must span whole lines, so that counters,
// the handoff line and the next worker never share one.
func TestWorkerLayout(t *testing.T) {
	var w worker
	assert.Zero(t, unsafe.Sizeof(w.c)%cacheLine)
	assert.Zero(t, unsafe.Offsetof(w.state)%cacheLine, "state at %d", unsafe.Offsetof(w.state))
	assert.Equal(t, unsafe.Offsetof(w.state)+8, unsafe.Offsetof(w.buf), "buf[0] on the handoff line")
	assert.Zero(t, unsafe.Sizeof(w)%cacheLine, "size %d", unsafe.Sizeof(w))
}
