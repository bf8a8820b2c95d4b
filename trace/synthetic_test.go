package trace

import (
	"fmt"
	"io"
	"runtime"
	"sync"
)

// synthetic describes a large valid trace generated on the fly.
type synthetic struct {
	size     int64  // stop starting blocks once this many bytes are written
	writers  uint32 // blocks go round-robin over writers 0..writers-1
	perBlock int    // events per block
	payload  int    // payload bytes per event
	// event gives the kind and argument of the i-th event.
	event func(i uint64) (Kind, uint64)
}

// write streams the trace to w, allocating only its buffers up front, so
// that a test can count what the consumer allocates. It returns the
// number of events written and w's error, if any.
func (g synthetic) write(w io.Writer) (uint64, error) {
	hdr := encodeFileHeader(1_700_000_000_000_000_000)
	if _, err := w.Write(hdr[:]); err != nil {
		return 0, err
	}
	rs := recordSize(g.payload)
	buf := make([]byte, blockHeaderSz+g.perBlock*rs)
	payload := make([]byte, g.payload)
	next := make([]uint64, g.writers)
	var n uint64
	for written := int64(fileHeaderSize); written < g.size; written += int64(len(buf)) {
		id := uint32(n/uint64(g.perBlock)) % g.writers
		body := buf[blockHeaderSz:]
		for j := 0; j < g.perBlock; j++ {
			kind, arg := g.event(n)
			putRecord(body[j*rs:(j+1)*rs], int64(n), next[id]+uint64(j), arg, kind, payload)
			n++
		}
		h := blockHeader{tag: tagEvents, writer: id, first: next[id], last: next[id] + uint64(g.perBlock) - 1,
			count: uint32(g.perBlock), length: uint32(len(body))}
		next[id] += uint64(g.perBlock)
		raw := (*[blockHeaderSz]byte)(buf)
		h.encode(raw)
		le.PutUint32(raw[36:], blockCRC(raw, body))
		if _, err := w.Write(buf); err != nil {
			return n, err
		}
	}
	end := make([]byte, endEntrySize*len(next))
	for id, c := range next {
		le.PutUint32(end[id*endEntrySize:], uint32(id))
		le.PutUint64(end[id*endEntrySize+8:], c)
	}
	h := blockHeader{tag: tagEnd, count: g.writers, length: uint32(len(end))}
	var raw [blockHeaderSz]byte
	h.encode(&raw)
	le.PutUint32(raw[36:], blockCRC(&raw, end))
	if _, err := w.Write(raw[:]); err != nil {
		return n, err
	}
	_, err := w.Write(end)
	return n, err
}

// stream starts writing the trace into a pipe and returns its read end
// and a function that closes the pipe and waits for the writer (so no
// goroutine outlives the test), returning the events written. The
// function may be called more than once.
func (g synthetic) stream() (*io.PipeReader, func() uint64) {
	pr, pw := io.Pipe()
	var n uint64
	var wg sync.WaitGroup
	wg.Go(func() {
		var err error
		n, err = g.write(pw)
		pw.CloseWithError(err)
	})
	return pr, func() uint64 {
		pr.Close()
		wg.Wait()
		return n
	}
}

// heapAllocated runs f and returns the bytes the whole process allocated
// on the Go heap meanwhile (runtime.MemStats.TotalAlloc, which counts
// every allocation, collected or not, so it bounds the peak heap growth).
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func (g synthetic) String() string {
	return fmt.Sprintf("%d MiB, %d writers, %d events per block, %d-byte payloads", g.size>>20, g.writers, g.perBlock, g.payload)
}
