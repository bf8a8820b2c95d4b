package gcsim

import (
	"fmt"
	"os"
	"testing"

	"github.com/gcbench/gcbench/workerpool"
)

// BenchmarkCollect times minor collections (the pause only; the mutator
// runs with the timer stopped) per mode, backend and wake policy, in
// benchstat's format. The heap is 64 MiB + 32 MiB, or the seed shape
// (512 MiB + 256 MiB, 8 workers) with GCBENCH_LARGE=1. Run with -count 10
// and compare modes with benchstat; note that go test runs the
// sub-benchmarks one after another, so Compare's interleaved rounds (the
// gcbench CLI) are the fairer comparison on a noisy machine.
func BenchmarkCollect(b *testing.B) {
	cfg := DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Workers = 64<<20, 32<<20, 2
	if os.Getenv("GCBENCH_LARGE") == "1" {
		cfg.MajorHeap, cfg.LOS, cfg.Workers = 512<<20, 256<<20, 8
	}
	type variant struct {
		backend workerpool.Backend
		wake    workerpool.WakePolicy
		modes   []Mode
	}
	for _, v := range []variant{
		{workerpool.Threads, workerpool.Broadcast, Modes()},
		{workerpool.Threads, workerpool.Targeted, []Mode{Batch}},
		{workerpool.Threads, workerpool.Spin, []Mode{Batch}},
		{workerpool.Goroutines, workerpool.Broadcast, []Mode{PerJob, Batch}},
	} {
		for _, mode := range v.modes {
			name := fmt.Sprintf("mode=%s/backend=%s/wake=%s/workers=%d", mode, v.backend, v.wake, cfg.Workers)
			b.Run(name, func(b *testing.B) {
				c := cfg
				c.Backend, c.Wake = v.backend, v.wake
				s, err := New(c)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				var cards, promoted int64
				for b.Loop() {
					b.StopTimer()
					if err := s.Mutate(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					rec, err := s.Collect(mode)
					if err != nil {
						b.Fatal(err)
					}
					cards += int64(rec.DirtyCards)
					promoted += rec.PromotedBytes
				}
				b.ReportMetric(float64(cards)/float64(b.N), "dirty-cards/op")
				b.ReportMetric(float64(promoted)/float64(b.N), "promoted-B/op")
			})
		}
	}
}
