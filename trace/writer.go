package trace

import (
	"runtime"
	"sync/atomic"
)

// A Writer records events into its own buffers. Its methods may be called
// by one goroutine at a time; use one Writer per goroutine (or guard a
// shared one, as gcsim.TraceObserver does).
type Writer struct {
	s  *Session
	id uint32

	cur    *buffer // the buffer being written; owned by the writer (and under lk with EventPipeReader)
	closed bool    // Close was called; owned by the writer

	// lk is the writer's own lock, EventPipe's per-thread lock: with
	// EventPipeReader the writer holds it around each write into its
	// buffer, and the reader takes it to convert that buffer to read-only.
	lk lockWord
	// lastRead is the sequence number of the writer's last event the
	// EventPipe reader emitted; the reader's own.
	lastRead uint64

	seq     atomic.Uint64 // next sequence number; stored only by the writer
	dropped atomic.Uint64
	failed  atomic.Uint64 // refused reservations

	// guarded by s.mu
	head, tail *buffer
	live       atomic.Int32 // buffers in the list; written under s.mu, read by the writer for sizing

	_ [64]byte // keep neighbouring writers' hot fields off this cache line
}

// A buffer is one block of event records. The writer appends records and
// publishes them by advancing the committed offset in state with a CAS;
// the reader seals the buffer by setting sealedBit, after which the
// committed offset never changes and the writer moves to a new buffer. A
// record the writer was copying when the seal landed lies past the
// committed offset, is never read, and is written again into the next
// buffer. The writer sets retiredBit when it will never touch the buffer
// again; only then may the reader free it.
type buffer struct {
	mem     []byte
	size    int64 // block size charged to the budget
	created int64 // session time of its allocation (EventPipe's creation timestamp)
	state   atomic.Uint64
	next    *buffer // the writer's list; guarded by s.mu
	readOff int     // bytes already emitted; reader only
}

const (
	sealedBit  = 1 << 62
	retiredBit = 1 << 63
	offsetMask = 1<<62 - 1
)

// ID returns the writer's id, as recorded in the trace.
func (w *Writer) ID() uint32 { return w.id }

// Written returns how many events this writer has attempted, which is
// also its next sequence number.
func (w *Writer) Written() uint64 { return w.seq.Load() }

// Dropped returns how many of this writer's events were dropped.
func (w *Writer) Dropped() uint64 { return w.dropped.Load() }

// Write records an event and reports whether it was kept. It never waits
// for the reader to drain anything: if no buffer space can be reserved the
// event is dropped, still consuming a sequence number so that the reader
// counts it as lost. An event of kind 0 or with a payload over MaxPayload
// is dropped the same way, and so is one whose Write was waiting for the
// manager lock when the session stopped (see Session.Stop). After the
// session's Stop or Close, or the writer's Close, Write returns false and
// counts nothing. Write allocates nothing on the Go heap but a small
// descriptor for each new buffer (whose bytes are off-heap by default).
//
// A writer keeps the buffer it writes into until that buffer is full, or
// until its first Write after the reader sealed it: so a writer that goes
// quiet holds one buffer, and that buffer's share of the session's Limit,
// until it writes again, is closed, or the session closes. Close a writer
// whose goroutine is done writing.
func (w *Writer) Write(kind Kind, arg uint64, payload []byte) bool {
	s := w.s
	if s.closed.Load() || w.closed {
		return false
	}
	seq := w.seq.Load()
	w.seq.Store(seq + 1)
	if len(payload) > MaxPayload || kind == 0 {
		w.dropped.Add(1)
		return false
	}
	n := recordSize(len(payload))
	t := s.now()
	if s.opt.Reader == EventPipeReader {
		return w.writeEventPipe(t, seq, arg, kind, payload, n)
	}
	for !w.tryCurrent(t, seq, arg, kind, payload, n) {
		b := s.newBuffer(w, n)
		s.signal() // EventPipe signals whenever a buffer was needed, even in vain
		if b == nil {
			w.dropped.Add(1)
			return false
		}
		w.cur = b
	}
	return true
}

// writeEventPipe is Write as ep_buffer_manager_write_event does it: the
// attempt on the current buffer under the writer's own lock; on failure a
// new buffer, got without that lock; then, under it again, either the
// drop (EventPipe bumps the sequence number there) or the new buffer
// installed as the current one and the event written into it. The reader
// takes the same lock to convert a buffer to read-only, so it never seals
// a buffer in the middle of a write.
func (w *Writer) writeEventPipe(t int64, seq, arg uint64, kind Kind, payload []byte, n int) bool {
	s := w.s
	w.lk.Lock()
	ok := w.tryCurrent(t, seq, arg, kind, payload, n)
	w.lk.Unlock()
	for !ok {
		b := s.newBuffer(w, n)
		s.signal()
		w.lk.Lock()
		if b == nil {
			w.dropped.Add(1)
			w.lk.Unlock()
			return false
		}
		w.cur = b
		// Cannot fail: b is new, holds at least this record, and the reader
		// converts a writer's buffer only under lk. The loop is a guard.
		ok = w.tryCurrent(t, seq, arg, kind, payload, n)
		w.lk.Unlock()
	}
	return true
}

// tryCurrent writes the record into the current buffer if it is not
// sealed and has room, and reports whether it did; otherwise it hands the
// buffer over for good (the reader may free it once drained) and clears
// it, so that the caller gets a new one.
func (w *Writer) tryCurrent(t int64, seq, arg uint64, kind Kind, payload []byte, n int) bool {
	b := w.cur
	if b == nil {
		return false
	}
	st := b.state.Load()
	off := int(st & offsetMask)
	if st&sealedBit == 0 && off+n <= len(b.mem) {
		putRecord(b.mem[off:off+n], t, seq, arg, kind, payload)
		if b.state.CompareAndSwap(st, st+uint64(n)) {
			return true
		}
	}
	// Full, or sealed by the reader: hand it over for good.
	w.cur = nil
	b.state.Or(sealedBit | retiredBit)
	return false
}

// Close hands the writer's buffer to the reader for good, which frees it,
// and releases its budget, once it has drained it; the events written
// before stay in the trace and in the writer's counts. Later Writes return
// false and count nothing; a second Close does nothing. Like Write, Close
// must not run concurrently with the writer's other calls, nor during the
// session's Close.
func (w *Writer) Close() {
	if w.closed {
		return
	}
	w.closed = true
	if w.s.opt.Reader == EventPipeReader {
		w.lk.Lock() // the EventPipe reader reads cur under it
		defer w.lk.Unlock()
	}
	if b := w.cur; b != nil {
		w.cur = nil
		b.state.Or(sealedBit | retiredBit)
		w.s.signal() // so that the reader drains and frees it without waiting for the next interval
	}
}

// newBuffer reserves, allocates and links a buffer with room for a record
// of need bytes, or returns nil if the budget (or the allocator) refuses.
//
// Lockless is buffer_manager_allocate_buffer_for_thread after
// dotnet/runtime#50797: buffer_manager_try_reserve_buffer first, without
// any lock; the allocation then under the manager lock with the link (as
// #50797 left it, LocklessAllocInLock) or before taking it (as #67936
// moved it). Locked is the same function before #50797, all under the
// manager lock: the request is admitted if one event fits what is left of
// the budget, and the new buffer is then shrunk to what is left. (EventPipe
// compared the bare request and rounded the buffer up to pages afterwards,
// which could overshoot the limit by part of a page; here the check takes
// one event's page-rounded block, so the limit is never exceeded.)
func (s *Session) newBuffer(w *Writer, need int) *buffer {
	size := bufferSize(int(w.live.Load()), need)
	if s.opt.Policy == Locked {
		return s.newBufferLocked(w, need, size)
	}
	if !s.tryReserve(int64(size)) {
		w.failed.Add(1)
		return nil
	}
	if s.opt.LocklessAllocInLock {
		if !s.lockForWriter() {
			s.release(int64(size))
			return nil
		}
		b := s.allocBuffer(size)
		if b != nil {
			s.link(w, b)
		}
		s.mu.Unlock()
		return b
	}
	b := s.allocBuffer(size) // outside the lock, as after dotnet/runtime#67936
	if b == nil {
		return nil
	}
	if !s.lockForWriter() {
		s.unallocBuffer(b)
		return nil
	}
	s.link(w, b)
	s.mu.Unlock()
	return b
}

// newBufferLocked is the pre-#50797 allocation: admission, sizing,
// allocation and link under the manager lock.
func (s *Session) newBufferLocked(w *Writer, need, size int) *buffer {
	if !s.lockForWriter() {
		return nil
	}
	defer s.mu.Unlock()
	left := s.opt.Limit - s.total.Load()
	if int64(eventBlockSize(need)) > left { // not even one event fits
		w.failed.Add(1)
		return nil
	}
	if int64(size) > left {
		size = int(left) / pageSize * pageSize // ≥ one event's block, which is whole pages
	}
	s.notePeak(s.total.Add(int64(size)))
	b := s.allocBuffer(size)
	if b != nil {
		s.link(w, b)
	}
	return b
}

// tryReserve is EventPipe's reservation: a CAS loop on the total that
// gives up, without any lock, as soon as the request would exceed the
// limit, and yields every 64 failed CASes.
func (s *Session) tryReserve(size int64) bool {
	for i := 1; ; i++ {
		old := s.total.Load()
		if old+size > s.opt.Limit {
			return false
		}
		if s.total.CompareAndSwap(old, old+size) {
			s.notePeak(old + size)
			return true
		}
		if i%64 == 0 {
			runtime.Gosched()
		}
	}
}

// release returns a freed buffer's bytes to the budget.
func (s *Session) release(size int64) { s.total.Add(-size) }

// allocBuffer gets memory for a reserved buffer; on failure it releases
// the reservation.
func (s *Session) allocBuffer(size int) *buffer {
	mem, err := s.alloc.alloc(size)
	if err != nil {
		s.allocFailures.Add(1)
		s.release(int64(size))
		return nil
	}
	s.buffersAllocated.Add(1)
	return &buffer{mem: mem, size: int64(size), created: s.now()}
}

// unallocBuffer undoes allocBuffer for a buffer never linked, which the
// reader never saw: its memory and its reservation go back at once.
func (s *Session) unallocBuffer(b *buffer) {
	s.alloc.free(b.mem)
	s.release(b.size)
	s.buffersFreed.Add(1)
}

// link appends b to w's list, and with EventPipeReader does the sequence
// point bookkeeping of its allocation; s.mu must be held.
func (s *Session) link(w *Writer, b *buffer) {
	if s.seq.window > 0 {
		s.allocated(b.size)
	}
	if w.tail == nil {
		w.head = b
	} else {
		w.tail.next = b
	}
	w.tail = b
	w.live.Add(1)
}
