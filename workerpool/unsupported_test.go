//go:build !linux

package workerpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestThreadsUnsupportedOffLinux(t *testing.T) {
	p, err := New(Options{Workers: 2, Backend: Threads})
	assert.Nil(t, p)
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "threads")
}
