package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"
	"sort"
	"time"
)

// Errors returned by Open and Reader.Next wrap one of these.
var (
	ErrNotTrace = errors.New("trace: not a gcbench trace (bad magic)")
	ErrVersion  = errors.New("trace: unsupported format version")
	// ErrTruncated is wrapped by Open when the file is shorter than its
	// header, and by Reader.Truncation when a trace ends without its end
	// block. Reader.Next never returns it: a cut trace reads as far as its
	// last complete block, then io.EOF.
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
// Read + Lost = Written always holds, without wrap-around.
//
// For a complete trace (one with its end block) Written is the number of
// events the writer attempted, as recorded in the end block, and Lost is
// exactly the number of those events that are not in the trace.
//
// For a truncated trace (Reader.Truncated) the writer's count was never
// written, so Written is only a lower bound: the writer's highest sequence
// number read plus one. Lost then counts only the gaps below that number
// (events the writer dropped); what the writer attempted after it, whether
// dropped, lost in the cut or never written, is unknown and counted
// nowhere. A writer none of whose blocks is complete is not listed.
type WriterCounts struct {
	Writer  uint32
	Read    uint64 // events present in the trace
	Lost    uint64 // events the writer attempted that are not
	Written uint64 // Read + Lost
}

// A Reader iterates over the events of a trace. It returns an event only
// from a block whose checksum it has verified, so every event it returns
// is one a writer recorded, and it never panics on bad input. It checks a
// block's records one by one as it returns them: a record malformed
// despite its block's checksum (a writer's bug, not damage on disk) ends
// the reading with ErrCorrupt after the block's earlier events.
//
// A trace can end early: a session that was killed, or whose disk filled,
// leaves a file without its end block, possibly cut inside a block. The
// Reader returns every event of every complete block, then io.EOF, as for
// a complete trace; Truncated then reports true and Truncation says where
// the trace was cut, and Counts and Totals cover what was read (see
// WriterCounts). The events of a cut block are not returned. A cut is told
// apart from damage only by what survives of the cut block: a partial
// header or body that breaks a rule of the format (an unknown tag, a
// record out of sequence) is ErrCorrupt, not a cut. A damaged length field
// in the last block that points past the end of the file is
// indistinguishable from a cut.
//
// Errors: Open returns an error wrapping ErrNotTrace, ErrVersion,
// ErrCorrupt, or ErrTruncated if the file is shorter than its header. Next
// returns an error wrapping ErrCorrupt, with the byte offset, for any
// checksum mismatch or structural violation (including sequence numbers
// or counts that would not fit in a uint64), or the underlying reader's
// error, wrapped. A caller that accepts only complete traces checks
// Truncation after io.EOF.
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
	totRead uint64 // sum of counts' Read
	totLost uint64 // sum of counts' Lost
	cut     error  // non-nil when the trace is truncated; wraps ErrTruncated
	cutAt   int64  // offset where the trace was cut: the end of its last complete block
	err     error
}

// writerState is what the reader knows of one writer. A writer has state
// only once one of its blocks has passed its checksum.
type writerState struct {
	next  uint64 // the highest sequence number of its complete blocks + 1
	read  uint64
	lastT int64
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
		case isEOF(err):
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

func isEOF(err error) bool { return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) }

// Header returns the file header.
func (r *Reader) Header() Header { return r.header }

// Next returns the next event. It returns io.EOF after the end block, or
// after the last complete block of a truncated trace, and an error (see
// Reader) if the trace is damaged; after io.EOF or an error every later
// call returns the same. ev.Payload is valid until the next call.
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
// writer id (see WriterCounts for what they mean in a truncated trace).
// It is nil until Next has returned io.EOF.
func (r *Reader) Counts() []WriterCounts { return r.counts }

// Totals sums Counts. The sums are exact: a trace whose counts would add
// up beyond 2^64−1 is rejected as corrupt before Next returns io.EOF.
func (r *Reader) Totals() (read, lost uint64) { return r.totRead, r.totLost }

// Truncated reports whether the trace ended without its end block. It is
// meaningful once Next has returned io.EOF (false before).
func (r *Reader) Truncated() bool { return r.cut != nil }

// Truncation returns nil if the trace ended with its end block, or, for a
// truncated trace, an error wrapping ErrTruncated that says at which byte
// the trace was cut and how. It is meaningful once Next has returned
// io.EOF; a caller that requires complete traces returns it then.
func (r *Reader) Truncation() error { return r.cut }

// read fills b from the input, advancing the offset by what it got.
func (r *Reader) read(b []byte) (int, error) {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	return n, err
}

// nextBlock reads and checks one block; an end block ends the trace, and
// so does the end of the input (a truncated trace).
func (r *Reader) nextBlock() error {
	at := r.off
	var raw [blockHeaderSz]byte
	if n, err := r.read(raw[:]); err != nil {
		return r.cutHeader(at, raw[:n], err)
	}
	h := &r.hdr
	h.decode(&raw)
	if err := r.checkHeader(at); err != nil {
		return err
	}
	if cap(r.body) < int(h.length) {
		r.body = make([]byte, h.length)
	}
	r.body = r.body[:h.length]
	if n, err := r.read(r.body); err != nil {
		return r.cutBody(at, r.body[:n], err)
	}
	if blockCRC(&raw, r.body) != h.crc {
		return fmt.Errorf("%w at byte %d: block checksum mismatch", ErrCorrupt, at)
	}
	if h.tag == tagEnd {
		return r.end(at)
	}
	return r.startEvents(at)
}

// checkHeader checks the rules a block header must follow by itself and
// against the blocks before it, before its body is read: so a header is
// judged the same whether or not its body was cut.
func (r *Reader) checkHeader(at int64) error {
	if problem := r.headerProblem(&r.hdr, blockHeaderSz); problem != "" {
		return fmt.Errorf("%w at byte %d: %s", ErrCorrupt, at, problem)
	}
	return nil
}

// headerProblem is the first rule of the format that h breaks, judged on
// the fields within its first have bytes (all of them for a whole header,
// fewer for one the input cut short, whose bytes past the cut decode as
// 0), or "" if none: so a header is judged the same whether or not it was
// cut, as far as it goes. A tag cut short must begin one of the tags.
func (r *Reader) headerProblem(h *blockHeader, have int) string {
	has := func(end int) bool { return have >= end } // the field ending at byte end is whole
	tag := h.tag[:min(have, len(h.tag))]
	isEvents, isEnd := bytes.HasPrefix(tagEvents[:], tag), bytes.HasPrefix(tagEnd[:], tag)
	switch {
	case !isEvents && !isEnd:
		return fmt.Sprintf("unknown block tag %q", tag)
	case has(32) && (h.length > MaxBlockBody || h.length%8 != 0):
		return fmt.Sprintf("block length %d", h.length)
	case has(36) && h.reserved != 0:
		return fmt.Sprintf("reserved field %#x", h.reserved)
	case isEvents && isEnd: // too little of the tag to tell which block this is
		return ""
	case isEnd:
		if has(8) && h.writer != 0 || has(16) && h.first != 0 || has(24) && h.last != 0 ||
			has(32) && uint64(h.count)*endEntrySize != uint64(h.length) {
			return "malformed end block"
		}
		return ""
	case has(28) && h.count == 0:
		return "empty event block"
	case has(32) && uint64(h.count)*recordHeaderSz > uint64(h.length):
		return fmt.Sprintf("%d events cannot fit %d bytes", h.count, h.length)
	case has(28) && (h.last < h.first || h.last-h.first < uint64(h.count-1)):
		return fmt.Sprintf("sequence range %d..%d for %d events", h.first, h.last, h.count)
	case has(24) && h.last < h.first:
		return fmt.Sprintf("sequence range %d..%d", h.first, h.last)
	case has(24) && h.last == math.MaxUint64:
		// The writer's count of attempted events would be last+1 = 2^64,
		// which no uint64 holds (and ws.next below would wrap to 0).
		return fmt.Sprintf("writer %d sequence %d leaves no room for its event count", h.writer, h.last)
	}
	if ws := r.writers[h.writer]; has(16) && ws != nil && h.first < ws.next {
		return fmt.Sprintf("writer %d sequence %d goes back (expected ≥ %d)", h.writer, h.first, ws.next)
	}
	return ""
}

func (r *Reader) startEvents(at int64) error {
	h := &r.hdr
	ws := r.writers[h.writer]
	if ws == nil {
		if len(r.writers) >= maxWriters {
			return fmt.Errorf("%w at byte %d: more than %d writers", ErrCorrupt, at, maxWriters)
		}
		ws = &writerState{}
		r.writers[h.writer] = ws
	}
	r.ws, r.pos, r.left, r.blockAt = ws, 0, h.count, at
	return nil
}

// record decodes the next record of the current event block.
func (r *Reader) record() (Event, error) {
	h, ws := &r.hdr, r.ws
	ev, size, err := parseRecord(r.body[r.pos:], h, h.count-r.left, r.prev, ws.lastT)
	if err == errShortRecord {
		err = errors.New("event block ends inside a record")
	}
	if err != nil {
		at := r.blockAt + blockHeaderSz + int64(r.pos)
		return Event{}, fmt.Errorf("%w at byte %d: writer %d: %v", ErrCorrupt, at, h.writer, err)
	}
	r.pos += size
	r.left--
	r.prev = ev.Seq
	ws.lastT = int64(ev.Time)
	ws.read++ // ≤ ws.next ≤ 2^64−1: sequence numbers strictly increase below last+1
	if r.left == 0 {
		if r.pos != len(r.body) {
			at := r.blockAt + blockHeaderSz + int64(r.pos)
			return Event{}, fmt.Errorf("%w at byte %d: writer %d: %d bytes after the last record", ErrCorrupt, at, h.writer, len(r.body)-r.pos)
		}
		ws.next = h.last + 1 // no wrap: checkHeader rejects last = 2^64−1
	}
	return ev, nil
}

// errShortRecord: the bytes end inside the record (a cut, or, in a
// complete block, a structural error).
var errShortRecord = errors.New("record cut short")

// parseRecord decodes the record at the start of b, record i of block h,
// and checks it against the block, the previous record's sequence number
// prev and the writer's previous time lastT. It returns the record's
// encoded size.
func parseRecord(b []byte, h *blockHeader, i uint32, prev uint64, lastT int64) (Event, int, error) {
	if len(b) < recordHeaderSz {
		return Event{}, 0, errShortRecord
	}
	ev := Event{
		Writer: h.writer,
		Time:   time.Duration(le.Uint64(b[0:])),
		Seq:    le.Uint64(b[8:]),
		Arg:    le.Uint64(b[16:]),
		Kind:   Kind(le.Uint16(b[24:])),
	}
	plen, resv := le.Uint32(b[28:]), le.Uint16(b[26:])
	switch {
	case ev.Kind == 0 || resv != 0:
		return Event{}, 0, fmt.Errorf("record kind %d / reserved %d", ev.Kind, resv)
	case plen > MaxPayload:
		return Event{}, 0, fmt.Errorf("payload length %d beyond MaxPayload", plen)
	case ev.Time < 0 || int64(ev.Time) < lastT:
		return Event{}, 0, fmt.Errorf("time %d goes back", ev.Time)
	case i == 0 && ev.Seq != h.first:
		return Event{}, 0, fmt.Errorf("first sequence %d, header says %d", ev.Seq, h.first)
	case i > 0 && ev.Seq <= prev:
		return Event{}, 0, fmt.Errorf("sequence %d after %d", ev.Seq, prev)
	case ev.Seq > h.last:
		return Event{}, 0, fmt.Errorf("sequence %d beyond block's last %d", ev.Seq, h.last)
	case i+1 == h.count && ev.Seq != h.last:
		return Event{}, 0, fmt.Errorf("last sequence %d, header says %d", ev.Seq, h.last)
	case uint64(recordSize(int(plen))) > uint64(len(b)):
		// Checked last so that a cut record's header is checked in full.
		return Event{}, 0, errShortRecord
	}
	n := recordHeaderSz + int(plen)
	ev.Payload = b[recordHeaderSz:n:n]
	return ev, recordSize(int(plen)), nil
}

// end checks the end block against what was read and computes the counts.
// The block's header was checked by checkHeader.
func (r *Reader) end(at int64) error {
	h := &r.hdr
	counts := make([]WriterCounts, 0, h.count)
	for i := 0; i < int(h.count); i++ {
		e := r.body[i*endEntrySize:]
		id, written := le.Uint32(e), le.Uint64(e[8:])
		if le.Uint32(e[4:]) != 0 || (i > 0 && id <= counts[i-1].Writer) {
			return fmt.Errorf("%w at byte %d: end block entry %d", ErrCorrupt, at, i)
		}
		c, err := endCounts(id, r.writers[id], written)
		if err != nil {
			return fmt.Errorf("%w at byte %d: %v", ErrCorrupt, at, err)
		}
		counts = append(counts, c)
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
	return r.setCounts(counts, at)
}

// endCounts checks one end-block entry against what was read of that
// writer (ws, nil if nothing) without wrap-around.
func endCounts(id uint32, ws *writerState, written uint64) (WriterCounts, error) {
	var read, next uint64
	if ws != nil {
		read, next = ws.read, ws.next
	}
	if written < next {
		return WriterCounts{}, fmt.Errorf("writer %d wrote %d events but sequence %d was read", id, written, next-1)
	}
	lost, borrow := bits.Sub64(written, read, 0)
	if borrow != 0 { // unreachable while read ≤ next; checked, not assumed
		return WriterCounts{}, fmt.Errorf("writer %d: %d events read of %d written", id, read, written)
	}
	return WriterCounts{Writer: id, Read: read, Lost: lost, Written: written}, nil
}

// setCounts sums counts without wrap-around and records them. A trace
// whose writers together wrote more than 2^64−1 events is corrupt: no
// session can, and Totals could not report it.
func (r *Reader) setCounts(counts []WriterCounts, at int64) error {
	var read, lost, written uint64
	for _, c := range counts {
		var c1, c2, c3 uint64
		read, c1 = bits.Add64(read, c.Read, 0)
		lost, c2 = bits.Add64(lost, c.Lost, 0)
		written, c3 = bits.Add64(written, c.Written, 0)
		if c1|c2|c3 != 0 {
			return fmt.Errorf("%w at byte %d: the writers' event counts add up beyond 2^64−1", ErrCorrupt, at)
		}
	}
	r.counts, r.totRead, r.totLost = counts, read, lost
	return io.EOF
}

// cutHeader handles the end of the input inside (or right at) a block
// header: a truncated trace, unless what there is of the header is
// already wrong.
func (r *Reader) cutHeader(at int64, got []byte, err error) error {
	if !isEOF(err) {
		return fmt.Errorf("trace: read block header at byte %d: %w", at, err)
	}
	if len(got) == 0 {
		return r.truncate(at, "no end block after the last complete block")
	}
	var raw [blockHeaderSz]byte
	copy(raw[:], got)
	var h blockHeader
	h.decode(&raw)
	if problem := r.headerProblem(&h, len(got)); problem != "" {
		return fmt.Errorf("%w at byte %d: %s", ErrCorrupt, at, problem)
	}
	return r.truncate(at, fmt.Sprintf("cut %d bytes into a block header", len(got)))
}

// cutBody handles the end of the input inside the body of the block at
// at, whose header checkHeader accepted: a truncated trace if the bytes
// that survive are a well-formed prefix of such a block.
func (r *Reader) cutBody(at int64, got []byte, err error) error {
	if !isEOF(err) {
		return fmt.Errorf("trace: read block body at byte %d: %w", at, err)
	}
	h := &r.hdr
	check := r.partialEventsProblem
	if h.tag == tagEnd {
		check = partialEndProblem
	}
	if off, problem := check(got); problem != "" {
		return fmt.Errorf("%w at byte %d: %s (in a block cut after %d of %d bytes)",
			ErrCorrupt, at+blockHeaderSz+int64(off), problem, len(got), h.length)
	}
	kind := "an event"
	if h.tag == tagEnd {
		kind = "the end"
	}
	return r.truncate(at, fmt.Sprintf("cut %d of %d bytes into the body of %s block", len(got), h.length, kind))
}

// partialEventsProblem checks the complete records of a cut event block
// as record would, without returning them: a cut block's events are
// never returned because its checksum cannot be verified.
func (r *Reader) partialEventsProblem(b []byte) (int, string) {
	h, prev, lastT := &r.hdr, uint64(0), int64(0)
	if ws := r.writers[h.writer]; ws != nil {
		lastT = ws.lastT
	}
	off := 0
	for i := uint32(0); i < h.count; i++ {
		ev, size, err := parseRecord(b[off:], h, i, prev, lastT)
		if err == errShortRecord {
			return 0, ""
		}
		if err != nil {
			return off, fmt.Sprintf("writer %d: %v", h.writer, err)
		}
		off += size
		prev, lastT = ev.Seq, int64(ev.Time)
	}
	// Every record fits in fewer bytes than the header's length.
	return off, fmt.Sprintf("writer %d: bytes after the last record", h.writer)
}

// partialEndProblem checks the complete entries of a cut end block.
func partialEndProblem(b []byte) (int, string) {
	for off := 0; off+endEntrySize <= len(b); off += endEntrySize {
		e := b[off:]
		if le.Uint32(e[4:]) != 0 || (off > 0 && le.Uint32(e) <= le.Uint32(b[off-endEntrySize:])) {
			return off, fmt.Sprintf("end block entry %d", off/endEntrySize)
		}
	}
	return 0, ""
}

// truncate ends a trace that was cut at byte at: the counts are those of
// the complete blocks (see WriterCounts).
func (r *Reader) truncate(at int64, why string) error {
	ids := make([]uint32, 0, len(r.writers))
	for id := range r.writers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	counts := make([]WriterCounts, len(ids))
	for i, id := range ids {
		ws := r.writers[id]
		lost, borrow := bits.Sub64(ws.next, ws.read, 0)
		if borrow != 0 { // unreachable while read ≤ next; checked, not assumed
			return fmt.Errorf("%w at byte %d: writer %d: %d events read below sequence %d", ErrCorrupt, at, id, ws.read, ws.next)
		}
		counts[i] = WriterCounts{Writer: id, Read: ws.read, Lost: lost, Written: ws.next}
	}
	if err := r.setCounts(counts, at); err != io.EOF {
		return err
	}
	r.cut = fmt.Errorf("%w at byte %d: %s", ErrTruncated, at, why)
	r.cutAt = at
	return io.EOF
}
