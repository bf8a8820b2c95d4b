package trace

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/gcbench/gcbench/internal/enum"
	"golang.org/x/sys/unix"
)

// Memory selects where buffer bytes live.
type Memory int

const (
	// OffHeap buffers are anonymous mmap blocks, unmapped as soon as the
	// reader has drained them. The host Go collector never sees them.
	OffHeap Memory = iota
	// GoHeap buffers are Go byte slices, reclaimed by the Go collector.
	GoHeap
)

var memoryNames = enum.New[Memory]("Memory", "memory", ErrInvalidOptions, "offheap", "goheap").
	Alias("off-heap", OffHeap).Alias("go-heap", GoHeap).Alias("heap", GoHeap)

// String returns "offheap" or "goheap" (Memory(n) for another value).
func (m Memory) String() string { return memoryNames.String(m) }

// ParseMemory parses "offheap" or "goheap" (also "off-heap", "go-heap" and
// "heap"), ignoring case.
func ParseMemory(s string) (Memory, error) { return memoryNames.Parse(s) }

// MemoryNames lists the names ParseMemory accepts, in value order
// (aliases aside).
func MemoryNames() []string { return memoryNames.List() }

// MarshalText returns m's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (m Memory) MarshalText() ([]byte, error) { return memoryNames.Marshal(m) }

// UnmarshalText sets m from a name ParseMemory takes.
func (m *Memory) UnmarshalText(b []byte) error { return memoryNames.Unmarshal(b, m) }

// An allocator hands out buffer memory of a block size that is a whole
// number of pages; the usable slice it returns may be a little shorter.
type allocator interface {
	alloc(size int) ([]byte, error)
	free(mem []byte)
	close()
}

var pageSize = os.Getpagesize()

// goHeap leaves everything to the Go collector.
type goHeap struct{}

func (goHeap) alloc(size int) ([]byte, error) { return make([]byte, size), nil }
func (goHeap) free([]byte)                    {}
func (goHeap) close()                         {}

// offHeap maps each block separately. Following aspnetcore's
// UnmanagedBufferAllocator, the bookkeeping lives inside the blocks: the
// first blockLinkSize bytes of every block hold the links of a doubly
// linked chain of live blocks, so close can unmap whatever was never freed
// (an abandoned session) without any Go-heap list that could fail to grow
// or keep the host collector busy. The links point only at mmap'd memory,
// which the Go collector ignores.
type offHeap struct {
	mu   sync.Mutex
	head *blockLink
}

type blockLink struct {
	prev, next *blockLink
	size       uintptr
}

const blockLinkSize = 64 // keeps the usable bytes cache-line aligned

func (a *offHeap) alloc(size int) ([]byte, error) {
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(size),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("trace: mmap %d bytes: %w", size, err)
	}
	l := (*blockLink)(p)
	l.size = uintptr(size)
	a.mu.Lock()
	l.next = a.head
	if a.head != nil {
		a.head.prev = l
	}
	a.head = l
	a.mu.Unlock()
	return unsafe.Slice((*byte)(unsafe.Add(p, blockLinkSize)), size-blockLinkSize), nil
}

// free unmaps the block whose usable part is mem.
func (a *offHeap) free(mem []byte) {
	l := (*blockLink)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(mem)), -blockLinkSize))
	a.mu.Lock()
	a.unlink(l)
	a.mu.Unlock()
	unmap(l)
}

func (a *offHeap) unlink(l *blockLink) {
	if l.prev != nil {
		l.prev.next = l.next
	} else {
		a.head = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	}
}

// close unmaps every block still live.
func (a *offHeap) close() {
	a.mu.Lock()
	l := a.head
	a.head = nil
	a.mu.Unlock()
	for l != nil {
		next := l.next
		unmap(l)
		l = next
	}
}

func unmap(l *blockLink) {
	if err := unix.MunmapPtr(unsafe.Pointer(l), l.size); err != nil {
		// Unmapping a range we mapped cannot fail unless memory is corrupt.
		panic(fmt.Sprintf("trace: munmap: %v", err))
	}
}

// bufferSize is EventPipe's sizing rule: 100 KiB × (live buffers + 1),
// capped at 1 MiB, at least enough for one record of need bytes (plus the
// block's own link header), rounded up to whole pages.
func bufferSize(live, need int) int {
	const step, limit = 100 << 10, 1 << 20
	size := min(step*(live+1), limit)
	return max(roundPages(size), eventBlockSize(need))
}

// eventBlockSize is the smallest block that holds one record of need
// bytes: whole pages.
func eventBlockSize(need int) int { return roundPages(need + blockLinkSize) }

func roundPages(n int) int { return (n + pageSize - 1) / pageSize * pageSize }
