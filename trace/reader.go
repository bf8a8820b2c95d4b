package trace

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"time"
)

// Errors returned by Open and Reader.Next wrap one of these.
var (
	ErrNotTrace  = errors.New("trace: not a gcbench trace (bad magic)")
	ErrVersion   = errors.New("trace: unsupported format version")
	ErrTruncated = errors.New("trace: truncated")
	ErrCorrupt   = errors.New("trace: corrupt")
)

// maxWriters bounds the per-writer state a reader keeps for untrusted input.
const maxWriters = 1 << 20

// Header is the decoded file header.
type Header struct {
	Version int
	Start   time.Time // the session's start (wall clock)
}

// WriterCounts are one writer's totals, known once Next has returned io.EOF.
type WriterCounts struct {
	Writer  uint32
	Read    uint64 // events present in the trace
	Lost    uint64 // events the writer attempted that are not
	Written uint64 // Read + Lost, as recorded in the end block
}

// A Reader iterates over the events of a trace. It checks every checksum
// and structural rule of the format and returns an error wrapping
// ErrNotTrace, ErrVersion, ErrTruncated or ErrCorrupt (with the byte
// offset) instead of ever panicking on bad input.
type Reader struct {
	r      *bufio.Reader
	off    int64 // offset of the next unread byte
	header Header

	hdr     blockHeader
	blockAt int64 // offset of the current block
	body    []byte
	pos     int // next record in body
	left    uint32
	prev    uint64 // last sequence number returned from this block
	ws      *writerState

	writers map[uint32]*writerState
	counts  []WriterCounts
	err     error
}

type writerState struct {
	next  uint64 // lowest sequence number the next block may start at
	read  uint64
	lastT int64
	seen  bool
}

// Open reads and checks the file header.
func Open(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, 256<<10), writers: map[uint32]*writerState{}}
	var h [fileHeaderSize]byte
	if n, err := io.ReadFull(rd.r, h[:]); err != nil {
		m := min(n, len(Magic))
		switch {
		case string(h[:m]) != Magic[:m]:
			return nil, fmt.Errorf("%w: magic %q", ErrNotTrace, h[:m])
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%w: file header is %d of %d bytes", ErrTruncated, n, fileHeaderSize)
		}
		return nil, fmt.Errorf("trace: read file header: %w", err)
	}
	rd.off = fileHeaderSize
	switch {
	case string(h[:8]) != Magic:
		return nil, fmt.Errorf("%w: magic %q", ErrNotTrace, h[:8])
	case le.Uint16(h[8:]) != Version:
		return nil, fmt.Errorf("%w: version %d (this reader reads %d)", ErrVersion, le.Uint16(h[8:]), Version)
	case crc32.Checksum(h[:28], castagnoli) != le.Uint32(h[28:]):
		return nil, fmt.Errorf("%w: file header checksum mismatch", ErrCorrupt)
	case le.Uint16(h[10:]) != fileHeaderSize || le.Uint32(h[12:]) != 0 || le.Uint32(h[24:]) != 0:
		return nil, fmt.Errorf("%w: file header size, flags or reserved field", ErrCorrupt)
	}
	rd.header = Header{Version: Version, Start: time.Unix(0, int64(le.Uint64(h[16:])))}
	return rd, nil
}

// Header returns the file header.
func (r *Reader) Header() Header { return r.header }

// Next returns the next event. It returns io.EOF after the end block, and
// a wrapped ErrTruncated/ErrCorrupt error (and the same error on every
// later call) if the trace is damaged. ev.Payload is valid until the next
// call.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for r.left == 0 {
		if err := r.nextBlock(); err != nil {
			r.err = err
			return Event{}, err
		}
	}
	ev, err := r.record()
	if err != nil {
		r.err = err
		return Event{}, err
	}
	return ev, nil
}

// Counts returns every writer's read/lost/written totals, sorted by
// writer id. It is complete only after Next has returned io.EOF.
func (r *Reader) Counts() []WriterCounts { return r.counts }

// Totals sums Counts.
func (r *Reader) Totals() (read, lost uint64) {
	for _, c := range r.counts {
		read += c.Read
		lost += c.Lost
	}
	return read, lost
}

// corrupt reports a bad record at its own offset in the file.
func (r *Reader) corrupt(format string, args ...any) error {
	at := r.blockAt + blockHeaderSz + int64(r.pos)
	return fmt.Errorf("%w at byte %d: %s", ErrCorrupt, at, fmt.Sprintf(format, args...))
}

func (r *Reader) readFull(b []byte, what string) error {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w at byte %d: %s", ErrTruncated, r.off, what)
		}
		return fmt.Errorf("trace: read %s at byte %d: %w", what, r.off, err)
	}
	return nil
}

// nextBlock reads and checks one block; an end block ends the trace.
func (r *Reader) nextBlock() error {
	blockStart := r.off
	var raw [blockHeaderSz]byte
	if err := r.readFull(raw[:], "block header (no end block)"); err != nil {
		return err
	}
	h := &r.hdr
	h.decode(&raw)
	switch {
	case h.tag != tagEvents && h.tag != tagEnd:
		return fmt.Errorf("%w at byte %d: unknown block tag %q", ErrCorrupt, blockStart, h.tag[:])
	case h.length > MaxBlockBody || h.length%8 != 0:
		return fmt.Errorf("%w at byte %d: block length %d", ErrCorrupt, blockStart, h.length)
	case h.reserved != 0:
		return fmt.Errorf("%w at byte %d: reserved field %#x", ErrCorrupt, blockStart, h.reserved)
	}
	if cap(r.body) < int(h.length) {
		r.body = make([]byte, h.length)
	}
	r.body = r.body[:h.length]
	if err := r.readFull(r.body, "block body"); err != nil {
		return err
	}
	if blockCRC(&raw, r.body) != h.crc {
		return fmt.Errorf("%w at byte %d: block checksum mismatch", ErrCorrupt, blockStart)
	}
	if h.tag == tagEnd {
		return r.end(blockStart)
	}
	return r.startEvents(blockStart)
}

func (r *Reader) startEvents(at int64) error {
	h := &r.hdr
	switch {
	case h.count == 0:
		return fmt.Errorf("%w at byte %d: empty event block", ErrCorrupt, at)
	case uint64(h.count)*recordHeaderSz > uint64(h.length):
		return fmt.Errorf("%w at byte %d: %d events cannot fit %d bytes", ErrCorrupt, at, h.count, h.length)
	case h.last < h.first || h.last-h.first < uint64(h.count-1):
		return fmt.Errorf("%w at byte %d: sequence range %d..%d for %d events", ErrCorrupt, at, h.first, h.last, h.count)
	}
	ws := r.writers[h.writer]
	if ws == nil {
		if len(r.writers) >= maxWriters {
			return fmt.Errorf("%w at byte %d: more than %d writers", ErrCorrupt, at, maxWriters)
		}
		ws = &writerState{}
		r.writers[h.writer] = ws
	}
	if ws.seen && h.first < ws.next {
		return fmt.Errorf("%w at byte %d: writer %d sequence %d goes back (expected ≥ %d)", ErrCorrupt, at, h.writer, h.first, ws.next)
	}
	ws.seen = true
	r.ws, r.pos, r.left, r.blockAt = ws, 0, h.count, at
	return nil
}

// record decodes the next record of the current event block.
func (r *Reader) record() (Event, error) {
	h, ws, b := &r.hdr, r.ws, r.body[r.pos:]
	if len(b) < recordHeaderSz {
		return Event{}, r.corrupt("writer %d: event block ends inside a record", h.writer)
	}
	ev := Event{
		Writer: h.writer,
		Time:   time.Duration(le.Uint64(b[0:])),
		Seq:    le.Uint64(b[8:]),
		Arg:    le.Uint64(b[16:]),
		Kind:   Kind(le.Uint16(b[24:])),
	}
	plen := le.Uint32(b[28:])
	first := r.left == h.count
	switch {
	case ev.Kind == 0 || le.Uint16(b[26:]) != 0:
		return Event{}, r.corrupt("writer %d: record kind %d / reserved %d", h.writer, ev.Kind, le.Uint16(b[26:]))
	case plen > MaxPayload || uint64(recordSize(int(plen))) > uint64(len(b)):
		return Event{}, r.corrupt("writer %d: payload length %d overruns the block", h.writer, plen)
	case ev.Time < 0 || int64(ev.Time) < ws.lastT:
		return Event{}, r.corrupt("writer %d: time %d goes back", h.writer, ev.Time)
	case first && ev.Seq != h.first:
		return Event{}, r.corrupt("writer %d: first sequence %d, header says %d", h.writer, ev.Seq, h.first)
	case !first && ev.Seq <= r.prev:
		return Event{}, r.corrupt("writer %d: sequence %d after %d", h.writer, ev.Seq, r.prev)
	case ev.Seq > h.last:
		return Event{}, r.corrupt("writer %d: sequence %d beyond block's last %d", h.writer, ev.Seq, h.last)
	}
	size := recordSize(int(plen))
	ev.Payload = b[recordHeaderSz : recordHeaderSz+int(plen) : recordHeaderSz+int(plen)]
	r.pos += size
	r.left--
	r.prev = ev.Seq
	ws.lastT = int64(ev.Time)
	ws.read++
	if r.left == 0 {
		switch {
		case ev.Seq != h.last:
			return Event{}, r.corrupt("writer %d: last sequence %d, header says %d", h.writer, ev.Seq, h.last)
		case r.pos != len(r.body):
			return Event{}, r.corrupt("writer %d: %d bytes after the last record", h.writer, len(r.body)-r.pos)
		}
		ws.next = h.last + 1
	}
	return ev, nil
}

// end checks the end block against what was read and computes the counts.
func (r *Reader) end(at int64) error {
	h := &r.hdr
	if h.writer != 0 || h.first != 0 || h.last != 0 || uint64(h.count)*endEntrySize != uint64(h.length) {
		return fmt.Errorf("%w at byte %d: malformed end block", ErrCorrupt, at)
	}
	counts := make([]WriterCounts, 0, h.count)
	for i := 0; i < int(h.count); i++ {
		e := r.body[i*endEntrySize:]
		id, written := le.Uint32(e), le.Uint64(e[8:])
		if le.Uint32(e[4:]) != 0 || (i > 0 && id <= counts[i-1].Writer) {
			return fmt.Errorf("%w at byte %d: end block entry %d", ErrCorrupt, at, i)
		}
		ws := r.writers[id]
		if ws == nil {
			ws = &writerState{}
		}
		if ws.seen && written < ws.next {
			return fmt.Errorf("%w at byte %d: writer %d wrote %d events but sequence %d was read", ErrCorrupt, at, id, written, ws.next-1)
		}
		counts = append(counts, WriterCounts{Writer: id, Read: ws.read, Lost: written - ws.read, Written: written})
	}
	for id := range r.writers {
		i := sort.Search(len(counts), func(i int) bool { return counts[i].Writer >= id })
		if i == len(counts) || counts[i].Writer != id {
			return fmt.Errorf("%w at byte %d: writer %d missing from the end block", ErrCorrupt, at, id)
		}
	}
	switch _, err := r.r.ReadByte(); {
	case err == nil:
		return fmt.Errorf("%w at byte %d: data after the end block", ErrCorrupt, r.off)
	case err != io.EOF:
		return fmt.Errorf("trace: read after the end block at byte %d: %w", r.off, err)
	}
	r.counts = counts
	return io.EOF
}
