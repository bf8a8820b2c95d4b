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

// The state word's fields do not overlap, and a shard index fits.
func TestStateWordFields(t *testing.T) {
	assert.Zero(t, uint64(runningMask)&countMask)
	assert.Zero(t, (uint64(runningMask)|countMask)&(3<<mailShift))
	assert.Equal(t, MaxGrab, countOf(uint64(MaxGrab)<<countShift|mailHanded<<mailShift|runningMask))
	assert.Equal(t, uint64(MaxWorkers-1), (uint64(MaxWorkers-1)<<shardShift|runningMask)>>shardShift)
	assert.Equal(t, shardShift, countShift, "running has the same width in both layouts")
	assert.Less(t, mailShift+2, 65)
}
