package pausemodel

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// BenchmarkNativeRoundFromSleep is workerpool's BenchmarkNativeSGenRound
// (65 jobs of 29 µs spun in C, 8 gated Native workers, perjob and batch)
// with the rounds apart, as the model runs its collections: every worker
// asleep in its wait and the other cores idle when a round starts, as
// between two collections, which back-to-back rounds are not. futile/op
// is the futile wake-ups per round, to set beside the model's on the
// host's cores:
//
//	go test -run '^$' -bench NativeRoundFromSleep ./pausemodel
//	taskset -c 0 go test -run '^$' -bench NativeRoundFromSleep ./pausemodel
func BenchmarkNativeRoundFromSleep(b *testing.B) {
	if !workerpool.NativeAvailable {
		b.Skip("the Native backend needs cgo on Linux")
	}
	const workers, apart = 8, 5 * time.Millisecond
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers + 1)) // each callback needs a P
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = workerpool.SpinJob(29 * time.Microsecond)
	}
	for _, m := range []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI} {
		for _, dispatch := range []string{"perjob", "batch"} {
			b.Run(fmt.Sprintf("mutex=%v/dispatch=%s", m, dispatch), func(b *testing.B) {
				p, err := workerpool.New(workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: m, Gated: true})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				ctx := context.Background()
				s0 := p.Stats()
				for b.Loop() {
					b.StopTimer()
					time.Sleep(apart)
					b.StartTimer()
					if dispatch == "perjob" {
						for _, j := range batch {
							if err := p.Enqueue(j); err != nil {
								b.Fatal(err)
							}
						}
					} else if err := p.EnqueueBatch(batch); err != nil {
						b.Fatal(err)
					}
					p.Start()
					if err := p.Join(ctx); err != nil {
						b.Fatal(err)
					}
				}
				d := p.Stats().Sub(s0)
				b.ReportMetric(float64(d.FutileWakeups)/float64(b.N), "futile/op")
			})
		}
	}
}
