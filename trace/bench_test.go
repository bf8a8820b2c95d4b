package trace

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// TestWriteAllocations: in steady state a Write allocates nothing on the
// Go heap (a buffer descriptor every few hundred events rounds to zero).
func TestWriteAllocations(t *testing.T) {
	s, err := NewSession(io.Discard, Options{Limit: 64 << 20, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, _ := s.NewWriter()
	p := make([]byte, 200)
	if n := testing.AllocsPerRun(20000, func() { w.Write(KindStress, 1, p) }); n != 0 {
		t.Fatalf("Write allocates %v times per call", n)
	}
}

// BenchmarkWrite measures one writer's Write with a budget that never runs
// out, per policy and memory (the reader drains to io.Discard).
func BenchmarkWrite(b *testing.B) {
	for _, pol := range policies {
		for _, mem := range memories {
			b.Run(fmt.Sprintf("policy=%v/memory=%v", pol, mem), func(b *testing.B) {
				s, err := NewSession(io.Discard, Options{Policy: pol, Memory: mem, FlushInterval: time.Millisecond})
				if err != nil {
					b.Fatal(err)
				}
				w, _ := s.NewWriter()
				p := make([]byte, 200)
				b.SetBytes(int64(len(p)))
				b.ReportAllocs()
				for b.Loop() {
					w.Write(KindStress, 0, p)
				}
				b.StopTimer()
				s.Close()
				b.ReportMetric(float64(w.Dropped())/float64(w.Written()), "dropped/op")
			})
		}
	}
}

// BenchmarkWriteExhausted measures a Write that fails because the budget is
// exhausted and the reader is parked: the Lockless path takes no lock.
func BenchmarkWriteExhausted(b *testing.B) {
	for _, pol := range policies {
		b.Run("policy="+pol.String(), func(b *testing.B) {
			s, err := NewSession(io.Discard, Options{Limit: MinLimit, Policy: pol, FlushInterval: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			w, _ := s.NewWriter()
			p := make([]byte, 200)
			for w.Write(KindStress, 0, p) {
			}
			b.RunParallel(func(pb *testing.PB) {
				w, _ := s.NewWriter()
				for pb.Next() {
					w.Write(KindStress, 0, p)
				}
			})
		})
	}
}
