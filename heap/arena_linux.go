//go:build linux

package heap

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// arena is one anonymous private mapping. Pages are touched lazily; the
// kernel hands out zeroed pages on first write.
type arena struct {
	mem []byte
}

func mapArena(size int64) (arena, error) {
	if int64(int(size)) != size {
		return arena{}, fmt.Errorf("mmap %d bytes: larger than the address space", size)
	}
	mem, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return arena{}, fmt.Errorf("mmap %d bytes: %w", size, err)
	}
	return arena{mem: mem}, nil
}

func (a *arena) base() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(a.mem)) }

// release gives the pages in [off, off+n) back to the kernel; they read as
// zero afterwards.
func (a *arena) release(off, n int64) {
	if n <= 0 || a.mem == nil {
		return
	}
	_ = unix.Madvise(a.mem[off:off+n], unix.MADV_DONTNEED)
}

func (a *arena) unmap() error {
	if a.mem == nil {
		return nil
	}
	err := unix.Munmap(a.mem)
	a.mem = nil
	if err != nil {
		return fmt.Errorf("munmap: %w", err)
	}
	return nil
}

// physicalMemory returns the machine's RAM in bytes, or 0 if unknown.
func physicalMemory() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
