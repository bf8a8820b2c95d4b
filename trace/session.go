package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/internal/enum"
)

// Sentinel errors; test with errors.Is.
var (
	ErrInvalidOptions = errors.New("trace: invalid options")
	ErrClosed         = errors.New("trace: session closed")
	// ErrTooManyWriters: a session has as many writers as a reader takes
	// (its end block must fit a block).
	ErrTooManyWriters = errors.New("trace: too many writers")
)

// Policy selects how a writer reserves budget for a new buffer.
type Policy int

const (
	// Lockless reserves with a CAS loop on the session's atomic total and
	// fails without taking any lock; the manager lock is taken only to link
	// a reserved buffer into the writer's list (and, with
	// Options.LocklessAllocInLock, to allocate it, as EventPipe did between
	// dotnet/runtime#50797 and #67936).
	Lockless Policy = iota
	// Locked checks, reserves and allocates under the manager lock, as
	// EventPipe did before the fix: a request is admitted if one event fits
	// what is left of the budget, and the buffer is shrunk to what is left.
	// So when the budget is exhausted every writer queues on that lock just
	// to learn that it must drop its event (the "lock caravan"), and the
	// reader, which needs the same lock to free buffers, starves.
	Locked
)

// Policy, Memory, LockKind and ReaderKind encode as their names in
// JSON and other text formats, and decode from any name their Parse
// function takes, so that a result that records its options says
// "lockless", not 0.
var policyNames = enum.New[Policy]("Policy", "policy", ErrInvalidOptions, "lockless", "locked")

// String returns "lockless" or "locked" (Policy(n) for another value).
func (p Policy) String() string { return policyNames.String(p) }

// ParsePolicy parses "lockless" or "locked", ignoring case.
func ParsePolicy(s string) (Policy, error) { return policyNames.Parse(s) }

// PolicyNames lists the names ParsePolicy accepts, in value order.
func PolicyNames() []string { return policyNames.List() }

// MarshalText returns p's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (p Policy) MarshalText() ([]byte, error) { return policyNames.Marshal(p) }

// UnmarshalText sets p from a name ParsePolicy takes.
func (p *Policy) UnmarshalText(b []byte) error { return policyNames.Unmarshal(b, p) }

// Defaults and bounds for Options.
const (
	DefaultLimit         = 256 << 20
	MinLimit             = 100 << 10 // EventPipe's floor: one smallest buffer
	DefaultFlushInterval = 100 * time.Millisecond
)

// Options configure a Session. The zero value is a 256 MiB lockless
// off-heap session whose manager lock is a sync.Mutex and whose batch
// reader flushes every 100 ms.
type Options struct {
	Limit         int64         // bytes of all buffers together; 0 = DefaultLimit; else ≥ MinLimit
	Policy        Policy        // how writers reserve budget
	Memory        Memory        // where buffer bytes live
	FlushInterval time.Duration // the reader's pause after each flush; 0 = DefaultFlushInterval
	Lock          LockKind      // the locks' implementation (the manager lock's, and the writers' own under EventPipeReader); MutexLock
	// Reader selects how the reader takes events out of the writers'
	// buffers: BatchReader (the zero value) or EventPipeReader. The file
	// it writes is the same format either way.
	Reader ReaderKind
	// LocklessAllocInLock, under the Lockless policy, allocates a reserved
	// buffer's memory while holding the manager lock, as EventPipe did from
	// dotnet/runtime#50797 (the lockless reservation) until #67936 moved
	// the allocation out; false allocates it outside, as EventPipe does
	// since. The Locked policy always allocates under the lock.
	LocklessAllocInLock bool
	// RunReader, if set, runs the session's reader: NewSession calls it on
	// a new goroutine with the reader's loop, which it must call exactly
	// once, on that goroutine, before returning; Close waits until it has
	// returned. It lets a caller choose where the reader runs and observe
	// it there — lock it to its own OS thread (runtime.LockOSThread, so
	// that the kernel schedules it beside writers on OS threads, as
	// EventPipe's streaming thread is), or read the thread's CPU time
	// around the loop. Nil runs the loop on a plain goroutine.
	RunReader func(loop func()) `json:"-"`
}

func (o Options) withDefaults() (Options, error) {
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	switch {
	case o.Limit < MinLimit:
		return o, fmt.Errorf("%w: Limit %d bytes is below the minimum %d", ErrInvalidOptions, o.Limit, MinLimit)
	case o.Policy != Lockless && o.Policy != Locked:
		return o, fmt.Errorf("%w: Policy %d", ErrInvalidOptions, int(o.Policy))
	case o.Memory != OffHeap && o.Memory != GoHeap:
		return o, fmt.Errorf("%w: Memory %d", ErrInvalidOptions, int(o.Memory))
	case o.Lock != MutexLock && o.Lock != SpinLock:
		return o, fmt.Errorf("%w: Lock %d", ErrInvalidOptions, int(o.Lock))
	case o.Reader != BatchReader && o.Reader != EventPipeReader:
		return o, fmt.Errorf("%w: Reader %d", ErrInvalidOptions, int(o.Reader))
	case o.FlushInterval < 0:
		return o, fmt.Errorf("%w: FlushInterval %v is negative", ErrInvalidOptions, o.FlushInterval)
	}
	return o, nil
}

// Validate returns nil if NewSession accepts o, and otherwise the error
// NewSession would return (wrapping ErrInvalidOptions, naming the field),
// so that a caller that starts sessions later, after other work, can
// refuse bad options before doing any.
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}

// A Session owns the budget, the writers' buffers and the reader goroutine
// that streams them to the output. Its buffer manager is .NET EventPipe's
// in Go (dotnet/runtime's src/native/eventpipe/ep-buffer-manager.c,
// buffer_manager_try_reserve_buffer and buffer_manager_allocate_buffer_for_thread):
//
//   - Every Writer (one per goroutine, like EventPipe's per-thread state)
//     bump-allocates events into its own buffer. A buffer is sized
//     100 KiB × (the writer's live buffer count + 1), capped at 1 MiB, at
//     least one event, rounded up to whole pages.
//   - A writer that needs a new buffer first reserves its size from the
//     session's budget, as the Policy says: lockless, or under the manager
//     lock.
//   - The manager lock is a sync.Mutex by default; Options.Lock selects a
//     spin lock like CoreCLR's, which guards EventPipe's, whose waiters
//     poll, yield the CPU to the kernel and stay runnable.
//   - A writer never waits for the reader: an event that finds no buffer is
//     dropped and consumes its sequence number.
//   - One reader goroutine per session wakes when writers start new buffers
//     (and every FlushInterval), takes the writers' events out of their
//     buffers into the output, and frees drained buffers that their writers
//     have handed over, which releases their budget. A writer hands a
//     buffer over when it is full, when the reader seals it (at the
//     writer's next Write), or at Writer.Close: with the batch reader, a
//     writer that goes quiet without Close keeps one buffer of the budget
//     (the EventPipe reader takes it). Options.Reader selects how:
//     BatchReader (the default) seals every writer's buffers, merges their
//     events in time order and frees what it drained, taking the manager
//     lock twice per flush; EventPipeReader does what EventPipe's streaming
//     thread does, taking the lock per step, per drained buffer and per
//     sequence point (see EventPipeReader).
//   - Buffer bytes come from anonymous mmap blocks (the aspnetcore
//     UnmanagedBufferAllocator argument): the host Go collector neither
//     scans nor owns them, and a block is unmapped at the first flush after
//     it has been drained and handed over. The GoHeap memory option keeps
//     the bytes on the Go heap, for comparison.
//
// Locking: mu (the manager lock) guards the writer list, every writer's
// buffer list and the sequence points. A writer's current buffer is owned
// by the writer; the batch reader touches it only through its atomic state
// word (see buffer), the EventPipe reader under the writer's own lock. The
// budget total is atomic; under Locked it is only increased with mu held.
type Session struct {
	opt   Options
	start time.Time
	alloc allocator

	total atomic.Int64 // bytes reserved by live buffers
	mu    lockWord     // the manager lock; acquire through lock, lockForWriter or lockForReader

	// guarded by mu
	writers []*Writer
	// published is writers as of the last NewWriter, for Stats, which
	// reads the writers' counters without the manager lock.
	published atomic.Pointer[[]*Writer]
	seq       seqPoints // EventPipeReader only

	closed      atomic.Bool   // no more events: set by Stop or Close
	closing     atomic.Bool   // Close was called
	wakePending atomic.Bool   // a wake-up is in s.wake or about to be
	pausing     atomic.Bool   // the reader is in its pause after a flush (tests)
	wake        chan struct{} // writers → reader: a new buffer was started
	done        chan struct{} // closed by Close
	finished    chan struct{} // closed when the reader has written the end block
	exited      chan struct{} // closed when the reader's goroutine (RunReader) returns

	out *bufio.Writer
	err error // first output error; the reader's, read after finished

	locks, writerLocks atomic.Uint64
	readerLocks        atomic.Uint64
	readerWriterLocks  atomic.Uint64
	eventsFlushed      atomic.Uint64
	seqRecorded        atomic.Uint64
	lockContended      atomic.Uint64
	lockWait           atomic.Int64 // nanoseconds
	buffersAllocated   atomic.Uint64
	buffersFreed       atomic.Uint64
	flushes, blocks    atomic.Uint64
	flushTime          atomic.Int64 // nanoseconds
	bytesFlushed       atomic.Uint64
	peak               atomic.Int64
	allocFailures      atomic.Uint64
}

// NewSession starts a session that streams to w and starts its reader
// goroutine. Close must be called to write the end of the stream, stop the
// reader and free the buffers.
func NewSession(w io.Writer, opt Options) (*Session, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Session{
		opt:      opt,
		start:    time.Now(),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		finished: make(chan struct{}),
		exited:   make(chan struct{}),
		out:      bufio.NewWriterSize(w, 1<<20),
	}
	s.mu.spin = opt.Lock == SpinLock
	if opt.Reader == EventPipeReader {
		s.seq.window = seqPointWindow(opt.Limit)
		s.seq.remaining = s.seq.window
	}
	if opt.Memory == OffHeap {
		s.alloc = &offHeap{}
	} else {
		s.alloc = goHeap{}
	}
	hdr := encodeFileHeader(s.start.UnixNano())
	if _, err := s.out.Write(hdr[:]); err != nil {
		return nil, fmt.Errorf("trace: write header: %w", err)
	}
	go s.runReader()
	return s, nil
}

// runReader is the reader's goroutine: the loop, through RunReader if set.
func (s *Session) runReader() {
	defer close(s.exited)
	if s.opt.RunReader == nil {
		s.readLoop()
		return
	}
	s.opt.RunReader(s.readLoop)
}

// Options returns the session's options with defaults filled in.
func (s *Session) Options() Options { return s.opt }

// NewWriter registers a writer. A Writer is meant for one goroutine at a
// time, like EventPipe's per-thread state; it returns ErrClosed after Stop
// or Close, and ErrTooManyWriters past the writers a Reader accepts
// (2^20), so that the session never writes a file its own reader refuses.
func (s *Session) NewWriter() (*Writer, error) {
	s.lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if len(s.writers) >= maxWriters {
		return nil, fmt.Errorf("%w: %d", ErrTooManyWriters, maxWriters)
	}
	w := &Writer{s: s, id: uint32(len(s.writers))}
	w.lk.spin = s.mu.spin
	s.writers = append(s.writers, w)
	ws := s.writers // elements below len(ws) never change, so a reader of an older snapshot reads no element written here
	s.published.Store(&ws)
	return w, nil
}

// Stop makes the session stop accepting events at once, without waiting
// for anything: Writes and NewWriters that begin afterwards fail as after
// Close, and a Write waiting for the manager lock behind other writers
// gives up within one run of polls and drops its event (counted in
// Dropped, so that the trace still accounts for it). The reader keeps
// draining; Close must still be called, once no Write is running. Stop may
// run concurrently with Writes, and more than once.
//
// Stop exists for cancellation. CoreCLR's spin-lock waiters never give up:
// when the budget is exhausted under Locked, or buffers turn over fast
// under Lockless, the whole set of writers queues on the manager lock,
// each handoff waits for the kernel to run the next spinner, and on an
// oversubscribed machine the writers need seconds to get through one by
// one after they are told to stop.
func (s *Session) Stop() { s.closed.Store(true) }

// Close stops accepting events, has the reader drain every buffer and
// write the end block, flushes the output and frees all buffer memory. No
// Write may run during Close (writes that begin after it return false and
// count nowhere); Stop first to end writes promptly. It returns the first
// output error, or ErrClosed on a second call.
func (s *Session) Close() error {
	if !s.closing.CompareAndSwap(false, true) {
		return ErrClosed
	}
	s.closed.Store(true)
	close(s.done)
	<-s.finished
	<-s.exited // RunReader's own work after the loop is done too
	s.alloc.close()
	return s.err
}

// Stats are a session's counters. They are read atomically one by one, so
// a snapshot taken while writers run is not a consistent cut.
type Stats struct {
	Written            uint64 // events attempted by all writers (= sequence numbers used)
	Dropped            uint64 // events that found no buffer (or were too large)
	FailedReservations uint64 // buffer reservations refused by the budget
	BuffersAllocated   uint64
	BuffersFreed       uint64
	BytesReserved      int64  // budget in use now
	PeakReserved       int64  // the most budget ever in use
	LockAcquisitions   uint64 // manager-lock acquisitions by anyone
	WriterLocks        uint64 // manager-lock acquisitions by writers
	ReaderLocks        uint64 // manager-lock acquisitions by the reader
	// ReaderWriterLocks counts the EventPipe reader's acquisitions of
	// writers' own locks: its conversions of a writer's buffer to read-only.
	ReaderWriterLocks uint64
	LockContended     uint64        // manager-lock acquisitions that found it held and waited
	LockWait          time.Duration // wall time spent waiting for the manager lock, summed over waiters
	Flushes           uint64        // reader flushes
	FlushTime         time.Duration // wall time the reader spent flushing (descheduled time included)
	BytesFlushed      uint64        // event bytes the reader emitted
	EventsFlushed     uint64        // events the reader emitted
	SequencePoints    uint64        // sequence points recorded (EventPipeReader)
	Blocks            uint64        // event blocks written
}

// Stats returns the current counters. It takes no lock, so that sampling
// them does not join the writers' queue on the manager lock.
func (s *Session) Stats() Stats {
	st := Stats{
		BuffersAllocated:  s.buffersAllocated.Load(),
		BuffersFreed:      s.buffersFreed.Load(),
		BytesReserved:     s.total.Load(),
		PeakReserved:      s.peak.Load(),
		LockAcquisitions:  s.locks.Load(),
		WriterLocks:       s.writerLocks.Load(),
		ReaderLocks:       s.readerLocks.Load(),
		ReaderWriterLocks: s.readerWriterLocks.Load(),
		EventsFlushed:     s.eventsFlushed.Load(),
		SequencePoints:    s.seqRecorded.Load(),
		LockContended:     s.lockContended.Load(),
		LockWait:          time.Duration(s.lockWait.Load()),
		Flushes:           s.flushes.Load(),
		FlushTime:         time.Duration(s.flushTime.Load()),
		BytesFlushed:      s.bytesFlushed.Load(),
		Blocks:            s.blocks.Load(),
	}
	var ws []*Writer
	if p := s.published.Load(); p != nil {
		ws = *p
	}
	for _, w := range ws {
		st.Written += w.seq.Load()
		st.Dropped += w.dropped.Load()
		st.FailedReservations += w.failed.Load()
	}
	return st
}

// lock takes the manager lock and counts the acquisition. An acquisition
// that finds the lock held is counted and timed, so that a caravan on the
// lock shows as wait time; one that finds it free costs no clock read.
func (s *Session) lock() { s.lockUnless(nil) }

// lockUnless is lock, except that a waiter gives up once quit is set, as
// lockWord.LockUnless does; it reports whether it took the lock. Time
// spent waiting in vain counts in LockWait, not in LockContended.
func (s *Session) lockUnless(quit *atomic.Bool) bool {
	if !s.tryLock() {
		t0 := time.Now()
		ok := s.mu.LockUnless(quit)
		s.lockWait.Add(int64(time.Since(t0)))
		if !ok {
			return false
		}
		s.lockContended.Add(1)
	}
	s.locks.Add(1)
	return true
}

// tryLock takes the manager lock if it is free, without waiting.
func (s *Session) tryLock() bool { return s.mu.TryLock() }

// lockForWriter is lock, also counted as a writer acquisition: the counter
// that proves a failed Lockless reservation takes no lock. It gives up,
// reporting false, when the session stops while it waits (see Stop).
func (s *Session) lockForWriter() bool {
	if !s.lockUnless(&s.closed) {
		return false
	}
	s.writerLocks.Add(1)
	return true
}

// lockForReader is lock, also counted as a reader acquisition: the counter
// that shows how often the reader joins the writers' queue on the lock.
func (s *Session) lockForReader() {
	s.lock()
	s.readerLocks.Add(1)
}

func (s *Session) now() int64 { return int64(time.Since(s.start)) }

// signal wakes the reader without ever blocking the writer. Once a wake-up
// is pending, further signals cost one atomic load and take no lock (a
// channel send would take the channel's lock whenever it has room).
func (s *Session) signal() {
	if s.wakePending.Load() || !s.wakePending.CompareAndSwap(false, true) {
		return
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Session) notePeak(total int64) {
	for {
		p := s.peak.Load()
		if total <= p || s.peak.CompareAndSwap(p, total) {
			return
		}
	}
}
