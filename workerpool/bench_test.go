package workerpool_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// The benchmarks name sub-benchmarks key=value so that benchstat can put
// the alternatives of one comparison side by side, e.g.
//
//	go test -run '^$' -bench Dispatch -count 10 ./workerpool > d.txt
//	benchstat -col /enqueue d.txt
//
// Every variant of a comparison runs in the same process; -count
// interleaves nothing by itself, so run the test binary several times with
// -count 1 and compare medians.
//
// Run the Threads backend with -cpu 2,9 as well: at GOMAXPROCS below
// workers+1 a worker thread woken from its futex waits for a Go P, so the
// per-job broadcast herd is throttled by the runtime rather than by the
// kernel. Measured on 2 cores, 8 gated workers, 65 jobs: batch+Broadcast
// took 0.79× the per-job round at GOMAXPROCS 2 and 0.51× at GOMAXPROCS 9.

var (
	backends = []workerpool.Backend{workerpool.Goroutines, workerpool.Threads}
	policies = []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Signal, workerpool.Targeted, workerpool.Spin}
)

func newBenchPool(b *testing.B, o workerpool.Options) *workerpool.Pool {
	b.Helper()
	p, err := workerpool.New(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := p.Close(); err != nil {
			b.Error(err)
		}
	})
	return p
}

// spinJob is a job of fixed CPU work: workIters xorshift steps, about 0.7 µs
// on the 2-core reference machine, so that a 65-job round carries roughly the
// 50 µs of work of the planning prototype. The result goes to a per-worker
// slot so the work cannot be optimized away.
type spinJob struct{ sink *[64]uint64 }

const workIters = 700

func (j spinJob) Run(worker int) {
	x := uint64(88172645463325252) + uint64(worker)
	for range workIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	j.sink[(worker+1)&63] += x // each worker's slot; Inline (-1) uses slot 0
}

// reportRound reports the counters of d averaged over rounds.
func reportRound(b *testing.B, d workerpool.Stats, rounds int) {
	r := float64(rounds)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/r, "ns/round")
	b.ReportMetric(float64(d.FutexCalls)/r, "futex-calls/round")
	b.ReportMetric(float64(d.WakeCalls)/r, "wakes/round")
	b.ReportMetric(float64(d.WorkersWoken)/r, "woken/round")
	b.ReportMetric(float64(d.FutileWakeups)/r, "futile/round")
	b.ReportMetric(float64(d.LockAcquisitions)/r, "locks/round")
}

// BenchmarkDispatch measures SGen's minor-collection shape: a gated pool of
// 8 workers, one round = 65 jobs queued (one Enqueue each, or one
// EnqueueBatch), Start, Join. One op is one round.
func BenchmarkDispatch(b *testing.B) {
	const workers, njobs = 8, 65
	var sink [64]uint64
	batch := make([]jobs.Job, njobs)
	for i := range batch {
		batch[i] = spinJob{&sink}
	}
	for _, be := range backends {
		for _, w := range policies {
			for _, kind := range []string{"perjob", "batch"} {
				name := fmt.Sprintf("backend=%v/wake=%v/enqueue=%s", be, w, kind)
				b.Run(name, func(b *testing.B) {
					p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w, Gated: true})
					ctx := context.Background()
					round := func() {
						if kind == "batch" {
							if err := p.EnqueueBatch(batch); err != nil {
								b.Fatal(err)
							}
						} else {
							for _, j := range batch {
								if err := p.Enqueue(j); err != nil {
									b.Fatal(err)
								}
							}
						}
						p.Start()
						if err := p.Join(ctx); err != nil {
							b.Fatal(err)
						}
					}
					round() // warm the ring and the threads
					before := p.Stats()
					b.ResetTimer()
					for range b.N {
						round()
					}
					b.StopTimer()
					reportRound(b, p.Stats().Sub(before), b.N)
				})
			}
		}
	}
}

// tinyJob is the DedicatedThreadPool harness's item: one atomic decrement of
// a shared counter.
type tinyJob struct{ left *atomic.Int64 }

func (j tinyJob) Run(int) { j.left.Add(-1) }

// throughputChunk is how many jobs EnqueueBatch queues per call in
// BenchmarkThroughput.
const throughputChunk = 1024

// BenchmarkThroughput is the DedicatedThreadPool throughput protocol: queue
// N tiny jobs, then wait for all of them, with one worker per CPU. One op is
// one job and a round queues b.N jobs, so run with -benchtime=10000000x for
// the protocol's 10,000,000 items. impl=goroutine-per-job is the baseline:
// `go` + sync.WaitGroup per job.
func BenchmarkThroughput(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	b.Run("impl=goroutine-per-job", func(b *testing.B) {
		var left atomic.Int64
		left.Store(int64(b.N))
		j := tinyJob{&left}
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(1)
			go func() {
				j.Run(jobs.Inline)
				wg.Done()
			}()
		}
		wg.Wait()
		if left.Load() != 0 {
			b.Fatalf("%d jobs did not run", left.Load())
		}
	})
	for _, be := range backends {
		for _, w := range policies {
			for _, kind := range []string{"enqueue", "batch"} {
				b.Run(fmt.Sprintf("impl=%v-%v-%s", be, w, kind), func(b *testing.B) {
					p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w})
					var left atomic.Int64
					j := tinyJob{&left}
					chunk := make([]jobs.Job, throughputChunk)
					for i := range chunk {
						chunk[i] = j
					}
					left.Store(int64(b.N))
					before := p.Stats()
					b.ResetTimer()
					if kind == "batch" {
						for n := b.N; n > 0; n -= len(chunk) {
							if err := p.EnqueueBatch(chunk[:min(n, len(chunk))]); err != nil {
								b.Fatal(err)
							}
						}
					} else {
						for range b.N {
							if err := p.Enqueue(j); err != nil {
								b.Fatal(err)
							}
						}
					}
					if err := p.Join(context.Background()); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if left.Load() != 0 {
						b.Fatalf("%d jobs did not run", left.Load())
					}
					d := p.Stats().Sub(before)
					b.ReportMetric(float64(d.FutexCalls)/float64(b.N), "futex-calls/op")
					b.ReportMetric(float64(d.WorkersWoken)/float64(b.N), "woken/op")
				})
			}
		}
	}
}

// BenchmarkLatency is the DedicatedThreadPool latency protocol: sequential
// round trips, each submitting one tiny job and waiting for it, so every
// job meets idle workers. One op is one round trip; run with
// -benchtime=300000x for the protocol's 300,000. impl=go-waitgroup is the
// baseline: `go` + sync.WaitGroup.Wait per job.
func BenchmarkLatency(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	b.Run("impl=go-waitgroup", func(b *testing.B) {
		var left atomic.Int64
		j := tinyJob{&left}
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(1)
			go func() {
				j.Run(jobs.Inline)
				wg.Done()
			}()
			wg.Wait()
		}
	})
	for _, be := range backends {
		for _, w := range policies {
			b.Run(fmt.Sprintf("impl=%v-%v", be, w), func(b *testing.B) {
				p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w})
				var left atomic.Int64
				j := tinyJob{&left}
				ctx := context.Background()
				before := p.Stats()
				b.ResetTimer()
				for range b.N {
					if err := p.Enqueue(j); err != nil {
						b.Fatal(err)
					}
					if err := p.Join(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				d := p.Stats().Sub(before)
				b.ReportMetric(float64(d.FutexCalls)/float64(b.N), "futex-calls/op")
				b.ReportMetric(float64(d.FutileWakeups)/float64(b.N), "futile/op")
			})
		}
	}
}
