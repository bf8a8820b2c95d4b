package gcsim

import (
	"errors"
	"testing"

	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DefaultBackend is SGen's own pool with mono's mutex where the build has
// the native backend; a build without cgo (CGO_ENABLED=0 go test, as
// .ci/run runs it) falls back to Threads, and Validate refuses Native there
// saying why.
func TestNativeDefaultBackendAndItsAbsence(t *testing.T) {
	b, m := DefaultBackend()
	cfg := DefaultConfig()
	assert.Equal(t, b, cfg.Backend)
	assert.Equal(t, m, cfg.Mutex)
	if workerpool.NativeAvailable {
		assert.Equal(t, workerpool.Native, b)
		assert.Equal(t, workerpool.MutexPI, m)
		return
	}
	assert.Equal(t, workerpool.Threads, b)
	cfg.Backend = workerpool.Native
	err := cfg.Validate()
	var ce *setting.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, "backend", ce.Field)
	assert.Contains(t, ce.Want, "cgo")
}
