package trace

import (
	"math"

	"github.com/gcbench/gcbench/internal/enum"
)

// ReaderKind selects how a session's reader takes events out of the
// writers' buffers. Both write the same file format, with the same
// guarantees per writer (sequence order, exact loss accounting); they
// differ in how often the reader takes the manager lock, and so in how it
// fares when writers queue on that lock.
type ReaderKind int

const (
	// BatchReader takes the manager lock twice per flush: once to seal
	// every writer's buffers and collect their unread records, once to
	// unlink the buffers it drained; it merges the records by time outside
	// the lock, and frees the drained buffers and returns their budget
	// outside it too. Each flush's output is in time order.
	BatchReader ReaderKind = iota
	// EventPipeReader is EventPipe's streaming reader,
	// ep_buffer_manager_write_all_buffers_to_file_v4 (dotnet/runtime
	// src/native/eventpipe/ep-buffer-manager.c), step for step:
	//
	//   - Writers record a sequence point under the manager lock at every
	//     limit/25.6 bytes of buffers handed out (10 MiB at the 256 MiB
	//     default, EventPipe's fixed 10 MB at its 256 MB stress setting):
	//     buffer_manager_allocate_buffer_for_thread, with
	//     buffer_manager_init_sequence_point_thread_list's walk over every
	//     writer. A flush reads window by window, each window ending at the
	//     next sequence point's time or at the flush's start.
	//   - Per step, move_next_event_any_thread: one acquisition, under
	//     which it walks every writer and collects its head buffer; then,
	//     without it, each head is converted to read-only
	//     (buffer_manager_try_convert_buffer_to_read_only, under that
	//     writer's own lock) and the writer with the oldest event is
	//     chosen, whose events up to the window's end are then emitted
	//     (move_next_event_same_thread).
	//   - Per drained buffer, advance_to_non_empty_buffer: one acquisition,
	//     inside which the buffer is unlinked, its memory freed and its
	//     budget returned.
	//   - Per window end, two acquisitions: one to walk every writer's
	//     sequence number and one to dequeue the sequence point (and one
	//     per flush to peek at the first).
	//
	// Writers take their own lock around each write (as
	// ep_buffer_manager_write_event takes the thread's), with the session's
	// LockKind. At 256 MiB a flush that finds the budget full takes the
	// manager lock about a thousand times, queueing each time behind the
	// writers that are waiting for it: the reader is part of the caravan.
	//
	// The file format has no sequence-point block: the sequence numbers a
	// point records are kept so that recording it and closing its window
	// cost, under the lock, what they cost EventPipe. Within a window the
	// output is grouped by writer, the writer with the oldest event first,
	// not merged by time (EventPipe's nettrace V4 makes the same trade).
	EventPipeReader
)

var readerNames = enum.New[ReaderKind]("ReaderKind", "reader kind", ErrInvalidOptions, "batch", "eventpipe")

// String returns "batch" or "eventpipe" (ReaderKind(n) for another
// value).
func (r ReaderKind) String() string { return readerNames.String(r) }

// ParseReaderKind parses "batch" or "eventpipe", ignoring case.
func ParseReaderKind(s string) (ReaderKind, error) { return readerNames.Parse(s) }

// ReaderKindNames lists the names ParseReaderKind accepts, in
// value order.
func ReaderKindNames() []string { return readerNames.List() }

// MarshalText returns r's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (r ReaderKind) MarshalText() ([]byte, error) { return readerNames.Marshal(r) }

// UnmarshalText sets r from a name ParseReaderKind takes.
func (r *ReaderKind) UnmarshalText(b []byte) error { return readerNames.Unmarshal(b, r) }

// seqPointWindow is the bytes of buffers handed out between two sequence
// points: limit/25.6, which is EventPipe's 10 MB at a 256 MB limit.
func seqPointWindow(limit int64) int64 { return max(limit/256*10, 1) }

// A seqPoint is EventPipe's EventPipeSequencePoint: a time and every
// writer's sequence number then.
type seqPoint struct {
	t    int64
	seqs []uint64 // by writer id
}

// seqPoints is the session's queue of sequence points and its allocation
// budget; guarded by the manager lock.
type seqPoints struct {
	window, remaining int64
	queue             []*seqPoint // oldest first
	spare             []*seqPoint // dequeued points, reused so that steady state allocates nothing
}

// allocated is the sequence-point bookkeeping of
// buffer_manager_allocate_buffer_for_thread: a point every window bytes of
// buffers handed out. s.mu must be held.
func (s *Session) allocated(size int64) {
	q := &s.seq
	if size < q.remaining {
		q.remaining -= size
		return
	}
	q.remaining = q.window
	var sp *seqPoint
	if n := len(q.spare); n > 0 {
		sp, q.spare = q.spare[n-1], q.spare[:n-1]
	} else {
		sp = &seqPoint{}
	}
	// buffer_manager_init_sequence_point_thread_list: the numbers first,
	// then the time, so that each is a lower bound at that time.
	sp.seqs = sp.seqs[:0]
	for _, w := range s.writers {
		sp.seqs = append(sp.seqs, w.seq.Load())
	}
	sp.t = s.now()
	q.queue = append(q.queue, sp)
	s.seqRecorded.Add(1)
}

// peekBoundary is the end of the window a flush that stops at stop reads
// next: the oldest sequence point's time if earlier. s.mu must be held.
func (s *Session) peekBoundary(stop int64) int64 {
	if len(s.seq.queue) > 0 {
		return min(stop, s.seq.queue[0].t)
	}
	return stop
}

// headBuffer is a writer and its head buffer, as move_next_event_any_thread
// collects them.
type headBuffer struct {
	w *Writer
	b *buffer
}

// flushEventPipe is ep_buffer_manager_write_all_buffers_to_file_v4 with
// the flush's start as its stop timestamp (no stop when final, when the
// writers are quiescent). It reports whether any event was emitted.
func (s *Session) flushEventPipe(fs *flushState, final bool) bool {
	stop := s.now()
	if final {
		stop = math.MaxInt64
	}
	s.lockForReader()
	boundary := s.peekBoundary(stop)
	s.mu.Unlock()
	wrote := false
	for {
		for {
			h, ok := s.moveNextAnyWriter(fs, boundary)
			if !ok {
				break
			}
			s.emitWriter(fs, h, boundary)
			wrote = true
		}
		if boundary == stop {
			return wrote
		}
		// The window ended at a sequence point. EventPipe raises the
		// point's numbers to what it read, then writes it to the file and
		// dequeues it, each under the lock.
		s.lockForReader()
		sp := s.seq.queue[0]
		for _, w := range s.writers {
			if int(w.id) >= len(sp.seqs) {
				sp.seqs = append(sp.seqs, 0)
			}
			sp.seqs[w.id] = max(sp.seqs[w.id], w.lastRead)
		}
		s.mu.Unlock()
		s.lockForReader()
		s.seq.queue[0] = nil
		s.seq.queue = s.seq.queue[1:]
		s.seq.spare = append(s.seq.spare, sp)
		boundary = s.peekBoundary(stop)
		s.mu.Unlock()
	}
}

// moveNextAnyWriter is buffer_manager_move_next_event_any_thread: under
// the manager lock, collect every writer's head buffer allocated before
// the boundary; without it, bring each to its first unread event (see
// advanceToNonEmpty) and pick the writer whose event is the oldest before
// the boundary. ok is false if no writer has one.
func (s *Session) moveNextAnyWriter(fs *flushState, boundary int64) (best headBuffer, ok bool) {
	fs.heads = fs.heads[:0]
	s.lockForReader()
	for _, w := range s.writers {
		if b := w.head; b != nil && b.created < boundary {
			fs.heads = append(fs.heads, headBuffer{w, b})
		}
	}
	s.mu.Unlock()
	oldest := boundary
	for i, h := range fs.heads {
		fs.heads[i] = headBuffer{}
		if b := s.advanceToNonEmpty(h.w, h.b, boundary); b != nil {
			if t := recordTime(b.mem, b.readOff); t < oldest {
				best, oldest, ok = headBuffer{h.w, b}, t, true
			}
		}
	}
	return best, ok
}

// emitWriter is move_next_event_same_thread's loop: it emits h's writer's
// events before the boundary, from its head buffer on, one block per
// buffer, freeing each buffer it drains.
func (s *Session) emitWriter(fs *flushState, h headBuffer, boundary int64) {
	w, b := h.w, h.b
	for b != nil {
		committed := int(b.state.Load() & offsetMask) // fixed: b is read-only
		start, off := b.readOff, b.readOff
		first, last, count := recordSeq(b.mem, off), uint64(0), 0
		for off < committed && recordTime(b.mem, off) < boundary {
			last = recordSeq(b.mem, off)
			off += recordSize(int(le.Uint32(b.mem[off+28:])))
			count++
		}
		if count > 0 {
			s.writeEvents(fs, w.id, first, last, count, b.mem[start:off])
			b.readOff, w.lastRead = off, last
		}
		if off < committed {
			return // its next event is past the boundary
		}
		if b = s.advanceToNonEmpty(w, b, boundary); b != nil && recordTime(b.mem, b.readOff) >= boundary {
			return
		}
	}
}

// advanceToNonEmpty is buffer_manager_advance_to_non_empty_buffer: from
// w's head buffer b, convert each buffer to read-only and return the first
// with an unread event; free each drained one, under the manager lock, as
// it goes. It returns nil at a buffer the writer has not started yet
// (which holds no event), at the end of the list, or at a buffer allocated
// at or after before. b must be w's head.
func (s *Session) advanceToNonEmpty(w *Writer, b *buffer, before int64) *buffer {
	for {
		if !s.convertToReadOnly(w, b) {
			return nil
		}
		if b.readOff < int(b.state.Load()&offsetMask) {
			return b
		}
		s.lockForReader()
		s.unlinkHead(w)
		s.alloc.free(b.mem) // inside the lock, as EventPipe's deallocate
		s.release(b.size)
		s.buffersFreed.Add(1)
		b = w.head
		if b != nil && b.created >= before {
			b = nil
		}
		s.mu.Unlock()
		if b == nil {
			return nil
		}
	}
}

// convertToReadOnly is buffer_manager_try_convert_buffer_to_read_only: a
// buffer already sealed is read-only; otherwise, under the writer's own
// lock, the writer's current buffer is sealed and taken from it (its next
// write starts a new one). A buffer linked but not yet the writer's
// current one is left alone, and reported not convertible: it holds no
// event yet.
func (s *Session) convertToReadOnly(w *Writer, b *buffer) bool {
	if b.state.Load()&sealedBit != 0 {
		return true
	}
	w.lk.Lock()
	s.readerWriterLocks.Add(1)
	if w.cur == b {
		w.cur = nil
		b.state.Or(sealedBit | retiredBit)
	}
	w.lk.Unlock()
	return b.state.Load()&sealedBit != 0
}

// unlinkHead removes w's head buffer from its list; s.mu must be held.
func (s *Session) unlinkHead(w *Writer) {
	b := w.head
	w.head = b.next
	if w.head == nil {
		w.tail = nil
	}
	b.next = nil
	w.live.Add(-1)
}
