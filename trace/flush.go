package trace

import (
	"fmt"
	"time"
)

// span is a range of one buffer's records that a flush emits.
type span struct {
	b        *buffer
	off, end int
}

// cursor walks one writer's spans during a flush's merge.
type cursor struct {
	w      *Writer
	spans  []span // fs.spans[lo:hi]
	lo, hi int
	t      int64 // time of the record at spans[0].off
}

// flushState is the reader's scratch space, reused by every flush so that
// a steady-state flush allocates nothing.
type flushState struct {
	spans   []span
	cursors []cursor
	heap    []*cursor
	hdr     [blockHeaderSz]byte
	free    []*buffer
	heads   []headBuffer // EventPipeReader's
}

// readLoop is the reader goroutine (EventPipe's streaming thread): flush,
// wait for a writer's signal if nothing was there, pause, repeat.
func (s *Session) readLoop() {
	defer close(s.finished)
	var fs flushState
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	for {
		wrote := s.flush(&fs, false)
		if !wrote {
			select {
			case <-s.wake:
				s.wakePending.Store(false)
			case <-s.done:
				s.finish(&fs)
				return
			}
		}
		pause.Reset(s.opt.FlushInterval)
		s.pausing.Store(true)
		select {
		case <-pause.C:
			s.pausing.Store(false)
		case <-s.done:
			pause.Stop()
			s.finish(&fs)
			return
		}
	}
}

// finish drains everything, writes the end block and flushes the output.
// Writers are quiescent (Close's contract), so every buffer can be freed.
func (s *Session) finish(fs *flushState) {
	s.flush(fs, true)
	s.writeEnd()
	if err := s.out.Flush(); err != nil {
		s.setErr(fmt.Errorf("trace: flush output: %w", err))
	}
}

func (s *Session) setErr(err error) {
	if s.err == nil {
		s.err = err
	}
}

// flush is the batch reader's flush (EventPipeReader's is flushEventPipe):
// it seals every writer's buffers, emits their unread records merged by
// time, and frees the buffers that are drained and retired (all of them
// when final). It reports whether any event was emitted.
func (s *Session) flush(fs *flushState, final bool) bool {
	t0 := time.Now()
	defer func() { s.flushTime.Add(int64(time.Since(t0))) }()
	s.flushes.Add(1)
	if s.opt.Reader == EventPipeReader {
		wrote := s.flushEventPipe(fs, final)
		if final {
			s.freeDrained(fs, true) // buffers never started, which hold no event
		}
		return wrote
	}
	fs.spans = fs.spans[:0]
	fs.cursors = fs.cursors[:0]
	s.lockForReader()
	for _, w := range s.writers {
		first := len(fs.spans)
		for b := w.head; b != nil; b = b.next {
			// Sealing the writer's current buffer is EventPipe's "convert to
			// read-only": the writer will start a new one.
			committed := int(b.state.Or(sealedBit) & offsetMask)
			if committed > b.readOff {
				fs.spans = append(fs.spans, span{b, b.readOff, committed})
			}
		}
		if len(fs.spans) > first {
			// spans is set below, once fs.spans has stopped growing.
			fs.cursors = append(fs.cursors, cursor{w: w, lo: first, hi: len(fs.spans)})
		}
	}
	s.mu.Unlock()
	for i := range fs.cursors {
		c := &fs.cursors[i]
		c.spans = fs.spans[c.lo:c.hi:c.hi]
	}

	wrote := len(fs.cursors) > 0
	if wrote {
		s.merge(fs)
	}
	s.freeDrained(fs, final)
	return wrote
}

// merge emits the cursors' records in time order: it repeatedly takes the
// writer with the oldest next record and emits that writer's run of
// records up to the next-oldest writer's time, one block per run (a block
// never spans buffers).
func (s *Session) merge(fs *flushState) {
	fs.heap = fs.heap[:0]
	for i := range fs.cursors {
		c := &fs.cursors[i]
		c.t = recordTime(c.spans[0].b.mem, c.spans[0].off)
		fs.heap = append(fs.heap, c)
	}
	h := cursorHeap(fs.heap)
	h.init()
	for len(h) > 0 {
		c := h[0]
		limit := int64(1<<63 - 1)
		if len(h) > 1 {
			limit = h[1].t
			if len(h) > 2 && h[2].t < limit {
				limit = h[2].t
			}
		}
		sp := &c.spans[0]
		start, first := sp.off, recordSeq(sp.b.mem, sp.off)
		var last uint64
		count := 0
		for sp.off < sp.end {
			t := recordTime(sp.b.mem, sp.off)
			if count > 0 && t > limit {
				break
			}
			last = recordSeq(sp.b.mem, sp.off)
			sp.off += recordSize(int(le.Uint32(sp.b.mem[sp.off+28:])))
			count++
		}
		s.writeEvents(fs, c.w.id, first, last, count, sp.b.mem[start:sp.off])
		if sp.off == sp.end {
			sp.b.readOff = sp.end
			c.spans = c.spans[1:]
			if len(c.spans) == 0 {
				h.pop()
				continue
			}
		}
		c.t = recordTime(c.spans[0].b.mem, c.spans[0].off)
		h.down(0)
	}
}

func recordTime(mem []byte, off int) int64 { return int64(le.Uint64(mem[off:])) }
func recordSeq(mem []byte, off int) uint64 { return le.Uint64(mem[off+8:]) }

func (s *Session) writeEvents(fs *flushState, writer uint32, first, last uint64, count int, body []byte) {
	h := blockHeader{tag: tagEvents, writer: writer, first: first, last: last,
		count: uint32(count), length: uint32(len(body))}
	s.writeBlock(fs, &h, body)
}

func (s *Session) writeBlock(fs *flushState, h *blockHeader, body []byte) {
	h.encode(&fs.hdr)
	le.PutUint32(fs.hdr[36:], blockCRC(&fs.hdr, body))
	s.blocks.Add(1)
	s.bytesFlushed.Add(uint64(len(body)))
	if h.tag == tagEvents {
		s.eventsFlushed.Add(uint64(h.count))
	}
	if s.err != nil {
		return // keep draining so that the budget is released
	}
	if _, err := s.out.Write(fs.hdr[:]); err != nil {
		s.setErr(fmt.Errorf("trace: write block: %w", err))
		return
	}
	if _, err := s.out.Write(body); err != nil {
		s.setErr(fmt.Errorf("trace: write block: %w", err))
	}
}

// writeEnd writes the end block: every writer's count of attempted events.
func (s *Session) writeEnd() {
	s.lock()
	ws := s.writers
	s.mu.Unlock()
	body := make([]byte, endEntrySize*len(ws))
	for i, w := range ws {
		le.PutUint32(body[i*endEntrySize:], w.id)
		le.PutUint64(body[i*endEntrySize+8:], w.seq.Load())
	}
	h := blockHeader{tag: tagEnd, count: uint32(len(ws)), length: uint32(len(body))}
	var fs flushState
	s.writeBlock(&fs, &h, body)
}

// freeDrained unlinks, under the manager lock, each writer's leading
// buffers that are drained and retired, then frees them and releases their
// budget outside it.
func (s *Session) freeDrained(fs *flushState, final bool) {
	fs.free = fs.free[:0]
	s.lockForReader()
	for _, w := range s.writers {
		for b := w.head; b != nil; b = w.head {
			st := b.state.Load()
			if !final && (st&retiredBit == 0 || b.readOff != int(st&offsetMask)) {
				break
			}
			w.head = b.next
			if w.head == nil {
				w.tail = nil
			}
			w.live.Add(-1)
			if final && w.cur == b {
				w.cur = nil
			}
			fs.free = append(fs.free, b)
		}
	}
	s.mu.Unlock()
	for i, b := range fs.free {
		s.alloc.free(b.mem)
		s.release(b.size)
		fs.free[i] = nil
	}
	s.buffersFreed.Add(uint64(len(fs.free)))
}

// cursorHeap is a min-heap of cursors by next record time, then writer id.
type cursorHeap []*cursor

func (h cursorHeap) less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].w.id < h[j].w.id
}

func (h cursorHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h cursorHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h *cursorHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
}
