package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceStressVariants: the flags that leave EventPipe's protocol (the
// batch reader, allocation outside the lock, the mutex, no writer cost)
// run and are named in each table's title; bad values are usage errors.
func TestTraceStressVariants(t *testing.T) {
	stdout, stderr, code := runBinary(t, append(traceStressTiny, "--dir", t.TempDir(), "--reader", "batch", "--alloc", "outside",
		"--lock", "mutex", "--write-cost", "0s")...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "policy lockless, allocation outside the lock: 3 writers, 50-byte payloads, 0s of work per event,")
	assert.Contains(t, stdout, "mutex (sync.Mutex) locks, batch reader")
	for _, args := range [][]string{{"--reader", "fast"}, {"--alloc", "middle"}, {"--write-cost", "-1us"}, {"--write-cost", "2s"}} {
		_, stderr, code := runBinary(t, append([]string{"trace-stress"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, args[0], "%v", args)
	}
}
