package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var policies = []Policy{Lockless, Locked}
var memories = []Memory{OffHeap, GoHeap}

// readAll reads a whole trace, failing the test on any error.
func readAll(t *testing.T, data []byte) ([]Event, *Reader) {
	t.Helper()
	r, err := Open(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var evs []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			if err := r.Truncation(); err != nil {
				t.Fatalf("after %d events: %v", len(evs), err)
			}
			return evs, r
		}
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(evs), err)
		}
		ev.Payload = bytes.Clone(ev.Payload)
		evs = append(evs, ev)
	}
}

func payloadFor(w, i int) []byte {
	n := (w*7 + i*13) % 300
	p := make([]byte, n)
	for j := range p {
		p[j] = byte(w + i + j)
	}
	return p
}

// TestRoundTrip: with a budget large enough for everything, every event
// comes back with identical fields, each writer's in sequence order.
func TestRoundTrip(t *testing.T) {
	for _, pol := range policies {
		for _, mem := range memories {
			t.Run(fmt.Sprintf("%v/%v", pol, mem), func(t *testing.T) {
				var buf bytes.Buffer
				s, err := NewSession(&buf, Options{Limit: 64 << 20, Policy: pol, Memory: mem, FlushInterval: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				const writers, perWriter = 4, 3000
				want := make([][]Event, writers)
				var wg sync.WaitGroup
				for w := 0; w < writers; w++ {
					wr, err := s.NewWriter()
					if err != nil {
						t.Fatal(err)
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < perWriter; i++ {
							k := Kind(1 + i%int(numKinds-1))
							p := payloadFor(w, i)
							if !wr.Write(k, uint64(i*w), p) {
								t.Errorf("writer %d: event %d dropped with a large budget", w, i)
								return
							}
							want[w] = append(want[w], Event{Writer: wr.ID(), Seq: uint64(i), Kind: k, Arg: uint64(i * w), Payload: p})
						}
					}()
				}
				wg.Wait()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				evs, r := readAll(t, buf.Bytes())
				got := make([][]Event, writers)
				for _, ev := range evs {
					got[ev.Writer] = append(got[ev.Writer], ev)
				}
				for w := range want {
					if len(got[w]) != len(want[w]) {
						t.Fatalf("writer %d: read %d events, wrote %d", w, len(got[w]), len(want[w]))
					}
					var last time.Duration
					for i, g := range got[w] {
						e := want[w][i]
						if g.Seq != e.Seq || g.Kind != e.Kind || g.Arg != e.Arg || !bytes.Equal(g.Payload, e.Payload) || g.Writer != e.Writer {
							t.Fatalf("writer %d event %d: got %+v, want %+v", w, i, g, e)
						}
						if g.Time < last {
							t.Fatalf("writer %d event %d: time went back", w, i)
						}
						last = g.Time
					}
				}
				read, lost := r.Totals()
				if read != writers*perWriter || lost != 0 {
					t.Fatalf("totals: read %d lost %d, want %d and 0", read, lost, writers*perWriter)
				}
				if st := s.Stats(); st.BuffersAllocated != st.BuffersFreed || st.BytesReserved != 0 {
					t.Fatalf("after Close: %+v, want every buffer freed and no budget in use", st)
				}
			})
		}
	}
}

// TestExactAccounting: with a budget far too small, per writer the events
// read back are exactly those whose Write returned true, and read + lost =
// written. Run it under -race.
func TestExactAccounting(t *testing.T) {
	type config struct {
		pol    Policy
		mem    Memory
		lock   LockKind
		reader ReaderKind
	}
	var configs []config
	for _, pol := range policies {
		for _, mem := range memories {
			configs = append(configs, config{pol, mem, MutexLock, BatchReader})
		}
		configs = append(configs, config{pol, OffHeap, SpinLock, BatchReader},
			config{pol, OffHeap, SpinLock, EventPipeReader}, config{pol, GoHeap, MutexLock, EventPipeReader})
	}
	for _, c := range configs {
		pol, mem := c.pol, c.mem
		{
			t.Run(fmt.Sprintf("%v/%v/%v/%v", pol, mem, c.lock, c.reader), func(t *testing.T) {
				var buf bytes.Buffer
				s, err := NewSession(&buf, Options{Limit: MinLimit * 3, Policy: pol, Memory: mem, Lock: c.lock, Reader: c.reader,
					LocklessAllocInLock: c.reader == EventPipeReader, FlushInterval: 20 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				const writers, perWriter = 8, 20000
				kept := make([][]uint64, writers)
				wrs := make([]*Writer, writers)
				var wg sync.WaitGroup
				payload := make([]byte, 100)
				for w := range wrs {
					wrs[w], _ = s.NewWriter()
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < perWriter; i++ {
							if wrs[w].Write(KindStress, uint64(i), payload) {
								kept[w] = append(kept[w], uint64(i))
							}
						}
					}()
				}
				wg.Wait()
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				evs, r := readAll(t, buf.Bytes())
				got := make([][]uint64, writers)
				for _, ev := range evs {
					if ev.Arg != ev.Seq {
						t.Fatalf("event %+v: arg/seq mismatch", ev)
					}
					got[ev.Writer] = append(got[ev.Writer], ev.Seq)
				}
				var totalLost uint64
				for w, c := range r.Counts() {
					if c.Writer != uint32(w) || c.Written != perWriter || wrs[w].Written() != perWriter {
						t.Fatalf("counts[%d] = %+v, writer says written %d", w, c, wrs[w].Written())
					}
					if c.Read+c.Lost != c.Written || c.Lost != wrs[w].Dropped() {
						t.Fatalf("writer %d: read %d + lost %d != written %d (writer dropped %d)", w, c.Read, c.Lost, c.Written, wrs[w].Dropped())
					}
					if fmt.Sprint(got[w]) != fmt.Sprint(kept[w]) {
						t.Fatalf("writer %d: sequence numbers read differ from those kept (%d read, %d kept)", w, len(got[w]), len(kept[w]))
					}
					totalLost += c.Lost
				}
				st := s.Stats()
				if totalLost == 0 || st.FailedReservations == 0 {
					t.Fatalf("no events lost with a %d-byte budget: the test exercised nothing (%+v)", MinLimit*3, st)
				}
				if st.PeakReserved > MinLimit*3 {
					t.Fatalf("peak reservation %d exceeds the limit %d", st.PeakReserved, MinLimit*3)
				}
				t.Logf("read %d, lost %d, %+v", len(evs), totalLost, st)
			})
		}
	}
}

// fillUntilDrop writes into a session until the budget is exhausted and
// the reader is in its hour-long pause, so that nothing frees budget.
func fillUntilDrop(t *testing.T, pol Policy) (*Session, *Writer) {
	t.Helper()
	s, err := NewSession(io.Discard, Options{Limit: MinLimit * 4, Policy: pol, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.NewWriter()
	p := make([]byte, 200)
	for round := 0; ; round++ {
		paused := s.pausing.Load() // if so, no flush runs during this round
		for i := 0; w.Write(KindStress, 0, p); i++ {
			if i > 1e6 {
				t.Fatal("budget never ran out")
			}
		}
		if paused {
			return s, w
		}
		if round > 1e4 {
			t.Fatal("reader never paused")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLocklessFailureTakesNoLock: once the budget is exhausted, a Lockless
// writer's failed reservations take the manager lock zero times; a Locked
// writer's take it once each.
func TestLocklessFailureTakesNoLock(t *testing.T) {
	for _, pol := range policies {
		t.Run(pol.String(), func(t *testing.T) {
			s, w := fillUntilDrop(t, pol)
			defer s.Close()
			before := s.Stats()
			const n = 1000
			for i := 0; i < n; i++ {
				if w.Write(KindStress, 0, make([]byte, 200)) {
					t.Fatal("write succeeded with the reader parked and the budget exhausted")
				}
			}
			after := s.Stats()
			gotLocks := after.WriterLocks - before.WriterLocks
			var want uint64
			if pol == Locked {
				want = n
			}
			if gotLocks != want {
				t.Fatalf("%d failed writes took the manager lock %d times, want %d", n, gotLocks, want)
			}
			if failed := after.FailedReservations - before.FailedReservations; failed != n {
				t.Fatalf("failed reservations: %d, want %d", failed, n)
			}
		})
	}
}

func TestOptionsValidation(t *testing.T) {
	bad := []Options{
		{Limit: MinLimit - 1},
		{Limit: -5},
		{Policy: 7},
		{Memory: 3},
		{FlushInterval: -time.Second},
		{Lock: 9},
		{Reader: 4},
	}
	for _, o := range bad {
		if _, err := NewSession(io.Discard, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("NewSession(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
}

func TestClosedSession(t *testing.T) {
	var buf bytes.Buffer
	s, err := NewSession(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.NewWriter()
	w.Write(kindMark, 1, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close = %v, want ErrClosed", err)
	}
	if _, err := s.NewWriter(); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewWriter after Close = %v, want ErrClosed", err)
	}
	if w.Write(kindMark, 2, nil) || w.Written() != 1 {
		t.Fatalf("Write after Close kept or counted an event (written %d)", w.Written())
	}
	evs, _ := readAll(t, buf.Bytes())
	if len(evs) != 1 || evs[0].Kind != kindMark || evs[0].Arg != 1 {
		t.Fatalf("read %+v", evs)
	}
}

// errWriter fails after n bytes.
type errWriter struct{ n int }

func (e *errWriter) Write(p []byte) (int, error) {
	if len(p) > e.n {
		return 0, errors.New("disk full")
	}
	e.n -= len(p)
	return len(p), nil
}

// TestOutputError: a failing output is reported by Close, and the budget
// is still released (writers are never stuck behind a dead output).
func TestOutputError(t *testing.T) {
	s, err := NewSession(&errWriter{n: 100}, Options{Limit: MinLimit * 4, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.NewWriter()
	p := make([]byte, 1000)
	for i := 0; i < 5000; i++ {
		w.Write(KindStress, 0, p)
	}
	err = s.Close()
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("disk full")) {
		t.Fatalf("Close = %v, want the output error", err)
	}
	if st := s.Stats(); st.BytesReserved != 0 || st.BuffersAllocated != st.BuffersFreed {
		t.Fatalf("after Close: %+v", st)
	}
}

func TestBufferSize(t *testing.T) {
	for _, c := range []struct{ live, need, want int }{
		{0, 232, 100 << 10},
		{1, 232, 200 << 10},
		{9, 232, 1000 << 10},
		{10, 232, 1 << 20},
		{50, 232, 1 << 20},
		{0, MaxPayload + recordHeaderSz, 100 << 10},
		{0, 200 << 10, 200<<10 + pageSize},
	} {
		if got := bufferSize(c.live, c.need); got != c.want {
			t.Errorf("bufferSize(%d, %d) = %d, want %d", c.live, c.need, got, c.want)
		}
	}
}

// TestNewWriterStopsAtWhatAReaderTakes: a session refuses a writer past
// maxWriters, whose end block would not fit a block, so that it never
// writes a file its own Reader rejects.
func TestNewWriterStopsAtWhatAReaderTakes(t *testing.T) {
	var buf bytes.Buffer
	s, err := NewSession(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	setWriters := func(ws []*Writer) { // under the lock: the reader goroutine reads them
		s.mu.Lock()
		s.writers = ws
		s.mu.Unlock()
	}
	setWriters(slices.Repeat([]*Writer{w}, maxWriters)) // as if maxWriters had registered
	if _, err := s.NewWriter(); !errors.Is(err, ErrTooManyWriters) {
		t.Fatalf("writer %d: %v, want ErrTooManyWriters", maxWriters+1, err)
	}
	setWriters([]*Writer{w})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestClosedWriterGivesItsBufferBack: a writer that goes quiet keeps its
// last buffer and its share of the limit; closing it lets the reader free
// that buffer, so another writer can have the budget, and keeps its
// events. A Write after Close is refused and not counted.
func TestClosedWriterGivesItsBufferBack(t *testing.T) {
	var out bytes.Buffer
	s, err := NewSession(&out, Options{Limit: MinLimit, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	quiet, _ := s.NewWriter()
	other, _ := s.NewWriter()
	if !quiet.Write(KindStress, 1, nil) {
		t.Fatal("the first write was dropped")
	}
	time.Sleep(20 * time.Millisecond) // many flushes: the buffer is sealed and drained, not handed over
	if other.Write(KindStress, 2, nil) {
		t.Fatal("another writer got a buffer while the quiet one held the whole budget")
	}

	quiet.Close()
	quiet.Close()
	if quiet.Write(KindStress, 3, nil) || quiet.Written() != 1 {
		t.Fatalf("a Write after Close: kept or counted (written %d)", quiet.Written())
	}
	for deadline := time.Now().Add(5 * time.Second); s.Stats().BuffersFreed == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the closed writer's buffer was never freed")
		}
	}
	if !other.Write(KindStress, 4, nil) {
		t.Fatal("the budget the closed writer gave back was not there")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(&out)
	if err != nil {
		t.Fatal(err)
	}
	var args []uint64
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, ev.Arg)
	}
	slices.Sort(args)
	want := []WriterCounts{{0, 1, 0, 1}, {1, 1, 1, 2}}
	if !slices.Equal(args, []uint64{1, 4}) || fmt.Sprint(r.Counts()) != fmt.Sprint(want) {
		t.Fatalf("events %v, counts %+v; want [1 4] and %+v", args, r.Counts(), want)
	}
}

// TestOptionNamesMarshal: the option enums print, parse and marshal by
// name; unknown values print as Type(n) and refuse to marshal.
func TestOptionNamesMarshal(t *testing.T) {
	for _, v := range []interface {
		String() string
		MarshalText() ([]byte, error)
	}{Policy(5), Memory(5), LockKind(5), ReaderKind(5)} {
		_, err := v.MarshalText()
		assert.ErrorIs(t, err, ErrInvalidOptions, v.String())
		assert.Contains(t, v.String(), "(5)")
	}
	b, err := json.Marshal(struct {
		P Policy
		M Memory
		L LockKind
		R ReaderKind
	}{Locked, GoHeap, SpinLock, EventPipeReader})
	require.NoError(t, err)
	assert.JSONEq(t, `{"P":"locked","M":"goheap","L":"spin","R":"eventpipe"}`, string(b))
	m, err := ParseMemory("Go-Heap")
	require.NoError(t, err)
	assert.Equal(t, GoHeap, m)
}

// TestStopEndsAWriteWaitingForTheLock: a Write queued on the spin manager
// lock gives up when the session stops, drops its event (counted, so the
// trace accounts for it), and gives back what it had reserved or
// allocated; later Writes and NewWriters fail as after Close. With the
// old code the Write waited for the lock, and the test fails at its bound.
func TestStopEndsAWriteWaitingForTheLock(t *testing.T) {
	type setup struct {
		pol    Policy
		inLock bool
		reader ReaderKind
	}
	var setups []setup
	for _, rd := range []ReaderKind{BatchReader, EventPipeReader} {
		setups = append(setups, setup{Locked, false, rd}, setup{Lockless, true, rd}, setup{Lockless, false, rd})
	}
	for _, c := range setups {
		t.Run(fmt.Sprintf("%v/alloc-in-lock=%v/%v", c.pol, c.inLock, c.reader), func(t *testing.T) {
			var buf bytes.Buffer
			s, err := NewSession(&buf, Options{Lock: SpinLock, Policy: c.pol, LocklessAllocInLock: c.inLock, Reader: c.reader})
			require.NoError(t, err)
			w, err := s.NewWriter()
			require.NoError(t, err)
			s.mu.Lock() // the queue ahead of the writer
			kept := make(chan bool)
			go func() { kept <- w.Write(KindStress, 1, make([]byte, 100)) }()
			waitWritten(t, w) // past Write's check of the session, so it will count
			s.Stop()
			select {
			case ok := <-kept:
				assert.False(t, ok, "the event was kept")
			case <-time.After(20 * time.Second):
				t.Fatal("Write still waiting for the manager lock 20 s after Stop")
			}
			st := s.Stats()
			assert.Equal(t, uint64(1), st.Dropped)
			assert.Zero(t, st.BytesReserved, "the abandoned buffer's reservation is given back")
			assert.Equal(t, st.BuffersAllocated, st.BuffersFreed, "an abandoned buffer is freed")
			assert.False(t, w.Write(KindStress, 2, nil), "a Write after Stop")
			assert.Equal(t, uint64(1), w.Written(), "a Write after Stop counts nothing")
			s.mu.Unlock()
			_, err = s.NewWriter()
			assert.ErrorIs(t, err, ErrClosed)
			require.NoError(t, s.Close())
			evs, r := readAll(t, buf.Bytes())
			read, lost := r.Totals()
			assert.Empty(t, evs)
			assert.Equal(t, [2]uint64{0, 1}, [2]uint64{read, lost}, "events read and lost")
		})
	}
}

// TestStopLeavesMutexWaitersWaiting: a mutex waiter parks, so Stop does
// not cut its wait short; it gets the lock once it is free and writes.
func TestStopLeavesMutexWaitersWaiting(t *testing.T) {
	var buf bytes.Buffer
	s, err := NewSession(&buf, Options{Lock: MutexLock})
	require.NoError(t, err)
	w, err := s.NewWriter()
	require.NoError(t, err)
	s.mu.Lock()
	kept := make(chan bool)
	go func() { kept <- w.Write(KindStress, 1, nil) }()
	waitWritten(t, w)
	s.Stop()
	s.mu.Unlock()
	select {
	case ok := <-kept:
		assert.True(t, ok)
	case <-time.After(20 * time.Second):
		t.Fatal("Write still waiting for the free manager lock after 20 s")
	}
	require.NoError(t, s.Close())
	evs, _ := readAll(t, buf.Bytes())
	assert.Len(t, evs, 1)
}

// waitWritten waits until w's Write in progress has taken its sequence
// number, failing the test after 20 s.
func waitWritten(t *testing.T, w *Writer) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); w.Written() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the Write never started")
		}
	}
}
