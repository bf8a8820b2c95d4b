package trace

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestPropertyExactlyOnce: for random writer counts, payload sizes,
// budgets, policies (Lockless allocating inside the manager lock or
// outside), memories, locks, reader kinds and flush intervals, and
// writers that close
// part-way (their later Writes refused and not counted), every event whose
// Write returned true is read back exactly once with its fields, no other
// event is, read + lost = written per writer, and Close returns every byte
// of budget and every buffer.
func TestPropertyExactlyOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opt := Options{
			Limit:               rapid.Int64Range(MinLimit, 8*MinLimit).Draw(t, "limit"),
			Policy:              rapid.SampledFrom([]Policy{Lockless, Locked}).Draw(t, "policy"),
			Memory:              rapid.SampledFrom([]Memory{OffHeap, GoHeap}).Draw(t, "memory"),
			FlushInterval:       time.Duration(rapid.IntRange(1, 5000).Draw(t, "flushµs")) * time.Microsecond,
			Lock:                rapid.SampledFrom([]LockKind{MutexLock, SpinLock}).Draw(t, "lock"),
			Reader:              rapid.SampledFrom([]ReaderKind{BatchReader, EventPipeReader}).Draw(t, "reader"),
			LocklessAllocInLock: rapid.Bool().Draw(t, "allocInLock"),
		}
		writers := rapid.IntRange(1, 6).Draw(t, "writers")
		perWriter := rapid.IntRange(0, 1500).Draw(t, "events")
		maxPayload := rapid.IntRange(0, 4000).Draw(t, "maxPayload")
		var buf bytes.Buffer
		s, err := NewSession(&buf, opt)
		if err != nil {
			t.Fatal(err)
		}
		kept := make([]map[uint64][]byte, writers)
		wrs := make([]*Writer, writers)
		written := make([]int, writers) // events a writer writes before it is closed, if it is
		var wg sync.WaitGroup
		for w := range wrs {
			wrs[w], _ = s.NewWriter()
			kept[w] = map[uint64][]byte{}
			closeAt := rapid.IntRange(0, perWriter+1).Draw(t, fmt.Sprintf("closeAt%d", w)) // perWriter+1: never
			written[w] = min(closeAt, perWriter)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perWriter; i++ {
					if i == closeAt {
						wrs[w].Close()
					}
					p := make([]byte, (i*31+w*7)%(maxPayload+1))
					for j := range p {
						p[j] = byte(i ^ j)
					}
					if wrs[w].Write(KindUser, uint64(i)*3, p) {
						if i >= closeAt {
							panic(fmt.Sprintf("writer %d kept event %d after its Close", w, i))
						}
						kept[w][uint64(i)] = p
					}
				}
			}()
		}
		wg.Wait()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]map[uint64]bool, writers)
		for w := range seen {
			seen[w] = map[uint64]bool{}
		}
		for {
			ev, err := r.Next()
			if err != nil {
				if err == io.EOF {
					break
				}
				t.Fatal(err)
			}
			want, ok := kept[ev.Writer][ev.Seq]
			switch {
			case !ok:
				t.Fatalf("writer %d seq %d read but its Write returned false", ev.Writer, ev.Seq)
			case seen[ev.Writer][ev.Seq]:
				t.Fatalf("writer %d seq %d read twice", ev.Writer, ev.Seq)
			case ev.Arg != ev.Seq*3 || !bytes.Equal(ev.Payload, want):
				t.Fatalf("writer %d seq %d: fields differ", ev.Writer, ev.Seq)
			}
			seen[ev.Writer][ev.Seq] = true
		}
		for w, c := range r.Counts() {
			if len(seen[w]) != len(kept[w]) || c.Read != uint64(len(kept[w])) || c.Read+c.Lost != c.Written || c.Written != uint64(written[w]) {
				t.Fatalf("writer %d: counts %+v, kept %d, seen %d", w, c, len(kept[w]), len(seen[w]))
			}
		}
		st := s.Stats()
		if st.BytesReserved != 0 || st.BuffersAllocated != st.BuffersFreed || st.PeakReserved > opt.Limit {
			t.Fatalf("after Close: %s", fmt.Sprintf("%+v", st))
		}
	})
}
