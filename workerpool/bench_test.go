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
// the alternatives of one comparison side by side:
//
//	go test -run '^$' -bench Dispatch -count 10 ./workerpool > d.txt
//	benchstat -col /enqueue d.txt    # SGen's round: per-job vs batch vs StartBatch
//	go test -run '^$' -bench TinyTasks -benchtime 1000000x -count 10 ./workerpool > t.txt
//	benchstat -col /submit t.txt     # per-task Enqueue vs EnqueueBatch of 1024
//	go test -run '^$' -bench RoundTrip -benchtime 300000x -count 10 ./workerpool > r.txt
//	benchstat -col /impl r.txt       # go f(); wg.Wait() vs each backend
//	go test -run '^$' -bench SubmitForms -count 10 ./workerpool > f.txt
//	benchstat -col /form f.txt       # allocs/op of each way of making a job
//
// Every variant of a comparison runs in the same process; -count
// interleaves nothing by itself, so run the test binary several times with
// -count 1 and compare medians.
//
// Give TinyTasks a fixed size (-benchtime 1000000x). Left to grow b.N to a
// second, a batched round reaches tens of millions of tasks, its backlog
// grows the queue to hundreds of MiB of job values that the Go collector
// must scan, and that scan, not dispatch, decides the time: on the 2-core
// reference machine the goroutine backend's shared-queue batch column then
// spread ±14–421% over six quiet runs; at a million tasks, ±15–35% on the
// shared queue (the sharded queue's batch column still spreads ±50–250%).
// Those spreads were measured with the doubling ring the blocks replaced.
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
// EnqueueBatch) then Start, or one StartBatch, then Join. One op is one
// round.
func BenchmarkDispatch(b *testing.B) {
	const workers, njobs = 8, 65
	var sink [64]uint64
	batch := make([]jobs.Job, njobs)
	for i := range batch {
		batch[i] = spinJob{&sink}
	}
	for _, be := range backends {
		for _, w := range policies {
			for _, kind := range []string{"perjob", "batch", "startbatch"} {
				name := fmt.Sprintf("backend=%v/wake=%v/enqueue=%s", be, w, kind)
				b.Run(name, func(b *testing.B) {
					p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w, Gated: true})
					ctx := context.Background()
					round := func() {
						switch kind {
						case "startbatch":
							if err := p.StartBatch(batch); err != nil {
								b.Fatal(err)
							}
						case "batch":
							if err := p.EnqueueBatch(batch); err != nil {
								b.Fatal(err)
							}
							p.Start()
						default:
							for _, j := range batch {
								if err := p.Enqueue(j); err != nil {
									b.Fatal(err)
								}
							}
							p.Start()
						}
						if err := p.Join(ctx); err != nil {
							b.Fatal(err)
						}
					}
					round() // warm the queue and the threads
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

// batchChunk is how many jobs one EnqueueBatch call queues in
// BenchmarkTinyTasks: the pool copies them, so one slice is reused.
const batchChunk = 1024

var queues = []workerpool.QueueLayout{workerpool.Shared, workerpool.Sharded}

// BenchmarkTinyTasks is the DedicatedThreadPool throughput protocol: queue
// b.N tiny jobs from one goroutine, per-task Enqueue or EnqueueBatch of
// 1024 at a time, then Join; one worker per CPU. One op is one task, so
// sec/op is the cost per task; run with -benchtime=10000000x for the
// protocol's 10,000,000 items. The target "EnqueueBatch of 1024 tiny tasks
// ≤ 0.5× per-task Enqueue" reads off
//
//	benchstat -col /submit tiny.txt
//
// The counters say where the time went: lock acquisitions and grabs per
// task show the batch dequeue (a worker takes up to MaxGrab jobs per lock).
func BenchmarkTinyTasks(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, be := range backends {
		for _, w := range policies {
			for _, q := range queues {
				for _, submit := range []string{"enqueue", "batch1024"} {
					name := fmt.Sprintf("backend=%v/wake=%v/queue=%v/submit=%s", be, w, q, submit)
					b.Run(name, func(b *testing.B) {
						p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w, Queue: q})
						runTinyTasks(b, p, submit == "batch1024")
					})
				}
			}
		}
	}
}

// runTinyTasks times one round of b.N tiny tasks after an untimed round of
// the same size: the queue keeps its blocks from round to round, so the
// timed round measures dispatch, not the queue's first growth (with a
// backlog of millions, growing it allocates tens of MiB of pointer-holding
// memory, which the Go collector then scans: that cost belongs to the first
// round only).
func runTinyTasks(b *testing.B, p *workerpool.Pool, batch bool) {
	var left atomic.Int64
	j := tinyJob{&left}
	chunk := make([]jobs.Job, batchChunk)
	for i := range chunk {
		chunk[i] = j
	}
	submitTiny(b, p, j, chunk, batch, &left) // warm-up
	before := p.Stats()
	b.ReportAllocs()
	b.ResetTimer()
	submitTiny(b, p, j, chunk, batch, &left)
	b.StopTimer()
	d := p.Stats().Sub(before)
	n := float64(b.N)
	b.ReportMetric(float64(d.LockAcquisitions)/n, "locks/task")
	b.ReportMetric(float64(d.Grabs)/n, "grabs/task")
	b.ReportMetric(float64(d.GrabSteals)/n, "grab-steals/task")
	b.ReportMetric(float64(d.FutexCalls)/n, "futex-calls/task")
	b.ReportMetric(float64(d.WorkersWoken)/n, "woken/task")
}

// submitTiny queues b.N tasks, one by one or in chunks, and joins them.
func submitTiny(b *testing.B, p *workerpool.Pool, j jobs.Job, chunk []jobs.Job, batch bool, left *atomic.Int64) {
	left.Store(int64(b.N))
	if batch {
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
	if left.Load() != 0 {
		b.Fatalf("%d jobs did not run", left.Load())
	}
}

// BenchmarkGoroutinePerTask is BenchmarkTinyTasks's baseline: `go` and a
// sync.WaitGroup per task.
func BenchmarkGoroutinePerTask(b *testing.B) {
	var left atomic.Int64
	left.Store(int64(b.N))
	j := tinyJob{&left}
	f := func() { j.Run(jobs.Inline) } // made once: a closure per task would cost the baseline an allocation the pool does not pay
	var wg sync.WaitGroup
	b.ReportAllocs()
	for range b.N {
		wg.Go(f)
	}
	wg.Wait()
	if left.Load() != 0 {
		b.Fatalf("%d jobs did not run", left.Load())
	}
}

// BenchmarkRoundTrip is the DedicatedThreadPool latency protocol:
// sequential round trips, each submitting one tiny job and waiting for it
// (Enqueue, Join), so every job meets idle workers; one worker per CPU.
// One op is one round trip; run with -benchtime=300000x for the protocol's
// 300,000. impl=go-waitgroup is `go f(); wg.Wait()`, measured in every row
// so that
//
//	benchstat -col /impl rt.txt
//
// shows each backend's round trip beside it, per wake policy and queue
// layout (targets: Spin on goroutines ≤ 0.5× go-waitgroup, on threads
// ≤ 2 µs). Run the Threads rows with -cpu 2,4 as well: below GOMAXPROCS
// workers+1 a woken worker thread may wait for a P (handoff-sleeps/op).
func BenchmarkRoundTrip(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, w := range policies {
		for _, q := range queues {
			prefix := fmt.Sprintf("wake=%v/queue=%v/impl=", w, q)
			b.Run(prefix+"go-waitgroup", benchGoRoundTrip)
			for _, be := range backends {
				b.Run(prefix+be.String(), func(b *testing.B) {
					p := newBenchPool(b, workerpool.Options{Workers: workers, Backend: be, Wake: w, Queue: q})
					runRoundTrips(b, p)
				})
			}
		}
	}
}

func benchGoRoundTrip(b *testing.B) {
	var left atomic.Int64
	j := tinyJob{&left}
	f := func() { j.Run(jobs.Inline) } // made once, as above
	var wg sync.WaitGroup
	b.ReportAllocs()
	for range b.N {
		wg.Go(f)
		wg.Wait()
	}
}

func runRoundTrips(b *testing.B, p *workerpool.Pool) {
	var left atomic.Int64
	j := tinyJob{&left}
	ctx := context.Background()
	before := p.Stats()
	b.ReportAllocs()
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
	n := float64(b.N)
	b.ReportMetric(float64(d.Handoffs)/n, "handoffs/op")
	b.ReportMetric(float64(d.JoinSpins)/n, "join-spins/op")
	b.ReportMetric(float64(d.JoinSleeps)/n, "join-sleeps/op")
	b.ReportMetric(float64(d.FutexCalls)/n, "futex-calls/op")
	b.ReportMetric(float64(d.HandoffSleeps)/n, "handoff-sleeps/op")
	b.ReportMetric(float64(d.FutileWakeups)/n, "futile/op")
}

// countRun is a top-level func job: storing it allocates nothing.
func countRun(int) { benchRuns.Add(1) }

var benchRuns atomic.Int64

type twoWords struct {
	n    *atomic.Int64
	step int64
}

func (j twoWords) Run(int) { j.n.Add(j.step) }

// BenchmarkSubmitForms measures what each way of making a job costs per
// submission, allocations included (allocs/op); one op is one Enqueue (or
// EnqueueFunc) of a tiny job, Joined every 1024 submissions. See
// Pool.Enqueue, "Submitting without allocating".
func BenchmarkSubmitForms(b *testing.B) {
	var n atomic.Int64
	j := tinyJob{&n}
	reused := jobs.Func(func(int) { n.Add(1) })
	forms := []struct {
		name   string
		submit func(p *workerpool.Pool, i int) error
	}{
		{"pointer-shaped", func(p *workerpool.Pool, _ int) error { return p.Enqueue(j) }},
		{"top-level-func", func(p *workerpool.Pool, _ int) error { return p.EnqueueFunc(countRun) }},
		{"reused-func", func(p *workerpool.Pool, _ int) error { return p.Enqueue(reused) }},
		{"closure", func(p *workerpool.Pool, i int) error {
			return p.EnqueueFunc(func(int) { n.Add(int64(i)) })
		}},
		{"method-value", func(p *workerpool.Pool, _ int) error { return p.EnqueueFunc(j.Run) }},
		{"two-word-value", func(p *workerpool.Pool, i int) error { return p.Enqueue(twoWords{&n, int64(i)}) }},
	}
	for _, f := range forms {
		b.Run("form="+f.name, func(b *testing.B) {
			p := newBenchPool(b, workerpool.Options{Workers: runtime.GOMAXPROCS(0), Wake: workerpool.Targeted})
			ctx := context.Background()
			b.ReportAllocs()
			for i := range b.N {
				if err := f.submit(p, i); err != nil {
					b.Fatal(err)
				}
				if i%1024 == 1023 {
					if err := p.Join(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := p.Join(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
