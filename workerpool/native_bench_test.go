package workerpool_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// BenchmarkNativeSGenRound is SGen's gated round on the Native backend —
// 65 jobs of about 29 µs, 8 workers, as an 8-core minor collection splits —
// per mutex kind, per dispatch (perjob: Enqueue per job then Start; batch:
// EnqueueBatch then Start), and per job kind: "c" jobs spin in C and make
// no callback (workerpool.SpinJob), "go" jobs spin as long in Go through
// one callback each. The ratio of batch to perjob for c jobs against go
// jobs is the callback's share of the effect:
//
//	go test -run '^$' -bench NativeSGenRound -count 10 ./workerpool > n.txt
//	benchstat -col /dispatch n.txt
//
// Each op is one round; futile/op counts the wake-ups that found the gate
// closed or the queue empty.
func BenchmarkNativeSGenRound(b *testing.B) {
	if !workerpool.NativeAvailable {
		b.Skip("the Native backend needs cgo on Linux; this build has none")
	}
	const workers, n, cost = 8, 65, 29 * time.Microsecond
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers + 1)) // each callback needs a P
	for _, m := range []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI} {
		for _, kind := range []string{"c", "go"} {
			batch := make([]jobs.Job, n)
			for i := range batch {
				batch[i] = workerpool.SpinJob(cost)
				if kind == "go" { // the same spin, in Go, through one callback: not a SpinJob to the pool
					batch[i] = jobs.Func(workerpool.SpinJob(cost).Run)
				}
			}
			for _, dispatch := range []string{"perjob", "batch"} {
				b.Run(fmt.Sprintf("mutex=%v/job=%s/dispatch=%s", m, kind, dispatch), func(b *testing.B) {
					p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: m, Gated: true})
					ctx := context.Background()
					s0 := p.Stats()
					for b.Loop() {
						if dispatch == "perjob" {
							for _, j := range batch {
								_ = p.Enqueue(j)
							}
						} else {
							_ = p.EnqueueBatch(batch)
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
}
