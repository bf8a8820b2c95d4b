package trace

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"
)

// heldReader is a RunReader that starts the reader's loop only when
// release is closed, so that a test can write before the reader runs.
func heldReader(release <-chan struct{}) func(loop func()) {
	return func(loop func()) {
		<-release
		loop()
	}
}

// TestEventPipeReaderLockCount: with one writer whose events were all
// written before the reader ran, the EventPipe reader's first flush takes
// the manager lock exactly once to peek at the sequence points, twice per
// window (a step that finds the writer, a step that finds nothing), once
// per buffer it drains (the free inside), and twice per sequence point
// whose window it closes; the final flush then takes it three times (peek,
// an empty step, the final sweep). The writer's current buffer is
// converted under the writer's own lock.
func TestEventPipeReaderLockCount(t *testing.T) {
	const limit = 64 << 20 // a sequence point every 2.5 MiB of buffers
	for _, c := range []struct {
		buffers     uint64 // 100 KiB, 200 KiB, …: 1.5 MiB for 5, 3.6 MiB for 8
		seqPoints   uint64
		description string
	}{{5, 0, "no sequence point"}, {8, 1, "one sequence point, at the 7th buffer"}} {
		t.Run(c.description, func(t *testing.T) {
			var buf bytes.Buffer
			release := make(chan struct{})
			s, err := NewSession(&buf, Options{Limit: limit, Reader: EventPipeReader, Lock: SpinLock,
				FlushInterval: time.Hour, RunReader: heldReader(release)})
			if err != nil {
				t.Fatal(err)
			}
			w, _ := s.NewWriter()
			p := make([]byte, 200)
			var written uint64
			for s.buffersAllocated.Load() < c.buffers || written == 0 {
				if s.buffersAllocated.Load() == c.buffers {
					written++ // the last buffer has an event
				}
				if !w.Write(KindStress, 0, p) {
					t.Fatal("an event was dropped with a 64 MiB budget")
				}
			}
			close(release)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			st := s.Stats()
			if st.BuffersAllocated != c.buffers || st.SequencePoints != c.seqPoints {
				t.Fatalf("%d buffers and %d sequence points, want %d and %d", st.BuffersAllocated, st.SequencePoints, c.buffers, c.seqPoints)
			}
			windows := c.seqPoints + 1
			want := 1 + 2*windows + c.buffers + 2*c.seqPoints + 3
			if st.ReaderLocks != want || st.ReaderWriterLocks != 1 || st.BuffersFreed != c.buffers {
				t.Fatalf("reader took the manager lock %d times, writers' locks %d times, freed %d buffers; want %d, 1, %d (%+v)",
					st.ReaderLocks, st.ReaderWriterLocks, st.BuffersFreed, want, c.buffers, st)
			}
			_, r := readAll(t, buf.Bytes())
			if read, lost := r.Totals(); read != st.Written || lost != 0 || read != st.EventsFlushed {
				t.Fatalf("read %d, lost %d, written %d, flushed %d", read, lost, st.Written, st.EventsFlushed)
			}
		})
	}
}

// TestEventPipeReaderTakesAQuietWritersBuffer: the EventPipe reader
// converts a quiet writer's current buffer to read-only, drains it and
// frees it, so its budget comes back without the writer's Close (the
// batch reader leaves it with the writer, see
// TestClosedWriterGivesItsBufferBack).
func TestEventPipeReaderTakesAQuietWritersBuffer(t *testing.T) {
	s, err := NewSession(io.Discard, Options{Limit: MinLimit, Reader: EventPipeReader, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	quiet, _ := s.NewWriter()
	if !quiet.Write(KindStress, 1, nil) {
		t.Fatal("the first write was dropped")
	}
	for deadline := time.Now().Add(5 * time.Second); s.Stats().BuffersFreed == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the quiet writer's buffer was never freed")
		}
	}
	if st := s.Stats(); st.BytesReserved != 0 || st.ReaderWriterLocks == 0 {
		t.Fatalf("%+v: want no budget in use, and the buffer converted under the writer's lock", st)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLockedAdmissionRule: Locked admits a buffer when one event fits
// what is left of the budget, and shrinks the buffer to what is left
// (whole pages); Lockless reserves whole buffers or nothing. Both take the
// manager lock as documented.
func TestLockedAdmissionRule(t *testing.T) {
	const limit = MinLimit * 4
	need := recordSize(200)
	for _, c := range []struct {
		pol       Policy
		left      int64 // budget left before the request
		want      int   // the buffer's size; 0: refused
		lockTaken uint64
	}{
		{Locked, 3*int64(pageSize) - 10, 2 * pageSize, 1}, // shrunk to the whole pages left
		{Locked, int64(pageSize), pageSize, 1},            // exactly one event's block
		{Locked, int64(pageSize) - 1, 0, 1},               // not one event: refused, under the lock
		{Locked, limit, 100 << 10, 1},                     // room: the usual size
		{Lockless, 3*int64(pageSize) - 10, 0, 0},          // a whole buffer or nothing, without the lock
		{Lockless, limit, 100 << 10, 1},
	} {
		s, err := NewSession(io.Discard, Options{Limit: limit, Policy: c.pol, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := s.NewWriter()
		used := limit - c.left
		s.total.Add(used) // as if other writers held it
		before := s.Stats()
		b := s.newBuffer(w, need)
		after := s.Stats()
		got := 0
		if b != nil {
			got = int(b.size)
		}
		if got != c.want || after.WriterLocks-before.WriterLocks != c.lockTaken || s.total.Load() != used+int64(got) {
			t.Errorf("%v with %d bytes left: buffer of %d bytes, %d writer locks, %d reserved; want %d, %d, %d",
				c.pol, c.left, got, after.WriterLocks-before.WriterLocks, s.total.Load(), c.want, c.lockTaken, used+int64(c.want))
		}
		if refused := after.FailedReservations - before.FailedReservations; (c.want == 0) != (refused == 1) {
			t.Errorf("%v with %d bytes left: %d refusals counted", c.pol, c.left, refused)
		}
		if b != nil { // hand it over so that Close frees it
			w.cur = b
			w.Close()
		}
		s.release(used)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.BytesReserved != 0 || st.BuffersAllocated != st.BuffersFreed {
			t.Fatalf("after Close: %+v", st)
		}
	}
}

// TestLockedFillsTheBudgetExactly: written until it drops with the reader
// paused, a Locked session has its whole (page-multiple) budget in use,
// each buffer shrunk to what was left; Lockless stops at the last whole
// buffer that fitted.
func TestLockedFillsTheBudgetExactly(t *testing.T) {
	s, _ := fillUntilDrop(t, Locked)
	defer s.Close()
	if st := s.Stats(); st.BytesReserved != s.opt.Limit || st.PeakReserved != s.opt.Limit {
		t.Fatalf("Locked, budget exhausted: %d bytes reserved, peak %d; want the limit %d", st.BytesReserved, st.PeakReserved, s.opt.Limit)
	}
}

// TestLockMutualExclusion: both lock kinds exclude each other's holders,
// with more goroutines than processors (so holders are preempted by the Go
// scheduler too). Run it under -race: the counter is a plain int, so an
// overlap is a reported race as well as a wrong count.
func TestLockMutualExclusion(t *testing.T) {
	for _, kind := range []LockKind{MutexLock, SpinLock} {
		t.Run(kind.String(), func(t *testing.T) {
			l := lockWord{spin: kind == SpinLock}
			goroutines, rounds := 2*runtime.GOMAXPROCS(0)+1, 300
			var (
				wg      sync.WaitGroup
				counter int
				inside  int
			)
			for range goroutines {
				wg.Go(func() {
					for range rounds {
						l.Lock()
						inside++
						if inside != 1 {
							panic("two holders")
						}
						counter++
						inside--
						l.Unlock()
					}
				})
			}
			wg.Wait()
			if counter != goroutines*rounds {
				t.Fatalf("counter %d, want %d", counter, goroutines*rounds)
			}
			l.Lock()
			if l.TryLock() {
				t.Fatal("TryLock took a held lock")
			}
			l.Unlock()
			if !l.TryLock() {
				t.Fatal("TryLock refused a free lock")
			}
		})
	}
}

// TestStatsTakesNoLock: sampling the counters never takes the manager
// lock, so that a measurement does not join the queue it measures.
func TestStatsTakesNoLock(t *testing.T) {
	s, err := NewSession(io.Discard, Options{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.NewWriter()
	w.Write(KindStress, 0, nil)
	s.mu.Lock() // held: a Stats that took it would never return
	st := s.Stats()
	s.mu.Unlock()
	if st.Written != 1 {
		t.Fatalf("Stats with the lock held: %+v", st)
	}
}
