//go:build !linux

package heap

import (
	"fmt"
	"unsafe"
)

type arena struct {
	mem []byte
}

func mapArena(size int64) (arena, error) {
	return arena{}, fmt.Errorf("mmap %d bytes: %w", size, ErrUnsupported)
}

func (a *arena) base() unsafe.Pointer { return nil }
func (a *arena) release(off, n int64) {}
func (a *arena) unmap() error         { return nil }

// AvailableMemory returns 0 (unknown) on this system, where no heap can
// be mapped anyway.
func AvailableMemory() int64 { return 0 }
