//go:build linux

package heap

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
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

// AvailableMemory returns the memory the kernel reports as available for
// new allocations (MemAvailable in /proc/meminfo), or failing that its
// free and buffer RAM; 0 if unknown. New refuses a heap larger than it
// (Config.CheckMemory).
func AvailableMemory() int64 {
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		if n := memAvailable(f); n > 0 {
			return n
		}
	}
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err == nil {
		return int64(si.Freeram+si.Bufferram) * int64(si.Unit)
	}
	return 0
}

// memAvailable is MemAvailable from a /proc/meminfo, in bytes; 0 if it is
// missing, not a positive count of kB or too large for an int64 in bytes.
func memAvailable(meminfo io.Reader) int64 {
	sc := bufio.NewScanner(meminfo)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 && kb <= math.MaxInt64>>10 {
				return kb << 10
			}
		}
	}
	return 0
}
