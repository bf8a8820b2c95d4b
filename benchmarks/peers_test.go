package benchmarks

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

func allContenders() []contender { return append(append([]contender{}, peers...), ours...) }

// benchTasks runs n tasks per operation on every contender and reports the
// cost per task. It fails if any task ran other than exactly once. If warm,
// one untimed run comes first (see warmUp).
func benchTasks(b *testing.B, n int, warm bool, newTask func() task) {
	for _, c := range allContenders() {
		b.Run("pool="+c.name, func(b *testing.B) {
			r, err := c.new(workers())
			if err != nil {
				b.Fatal(err)
			}
			defer r.close()
			t := newTask()
			if warm && c.queues {
				warmUp(b, func() error { return r.run(n, t) }, t)
			}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if err := r.run(n, t); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/task")
			b.StopTimer()
			if got, want := t.count(), int64(b.N*n); got != want {
				b.Fatalf("%d tasks ran, want %d", got, want)
			}
		})
	}
}

// warmUp runs one untimed operation and resets the task's count. A pool's
// first run of a million tiny tasks grows its queue storage (gcbench's queue
// blocks reach up to 16 MiB, pond's buffer allocates its chunks) and, with it, the Go
// heap, whose collector then scans that storage: a cost of the first run
// only, which would otherwise dominate a -benchtime=1x measurement of the
// fast contenders. The timed runs measure a warm pool, as a long-lived pool
// is. Contenders without such storage (a goroutine per task, errgroup,
// conc, ants) have nothing to warm and skip it. warmUp then completes a
// collection, as the testing package does before every benchmark: the
// cycle the growth started would otherwise still be marking — on two CPUs
// that can take over 100 ms — during the timed operation, and make its time
// depend on where that cycle began.
func warmUp(b *testing.B, run func() error, t task) {
	b.Helper()
	before := t.count()
	if err := run(); err != nil {
		b.Fatal(err)
	}
	t.reset(before)
	runtime.GC()
}

// BenchmarkTiny queues 1M and 10M tiny tasks per operation and waits for
// them, on a warm pool: pure dispatch cost. The 10M size runs only with GCBENCH_LARGE=1
// (the README's command sets it): a goroutine per task alone takes tens of
// seconds there, too long for CI's one-iteration pass.
func BenchmarkTiny(b *testing.B) {
	sizes := []int{1_000_000}
	if os.Getenv("GCBENCH_LARGE") == "1" {
		sizes = append(sizes, 10_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%dM", n/1_000_000), func(b *testing.B) {
			benchTasks(b, n, true, func() task { return new(tiny) })
		})
	}
}

// A shape is a many-submitter workload: users goroutines submit perUser
// tiny tasks each, all at once (the shapes of alitto/pond-benchmarks).
type shape struct {
	name           string
	users, perUser int
}

var shapes = []shape{
	{"1x1M", 1, 1_000_000},
	{"100x10K", 100, 10_000},
	{"1Kx1K", 1_000, 1_000},
	{"10Kx100", 10_000, 100},
}

// BenchmarkSubmitters submits 1M tiny tasks per operation from 1, 100, 1K
// and 10K goroutines at once, each submitting its share one task at a time
// (gcbench's batch contenders: one EnqueueBatch per up to 1024 of its
// tasks), and waits for all of them: the cost of many concurrent
// submitters. It reports ns/task, and fails if a task was lost or ran
// twice.
func BenchmarkSubmitters(b *testing.B) {
	for _, sh := range shapes {
		b.Run("shape="+sh.name, func(b *testing.B) {
			for _, c := range allContenders() {
				b.Run("pool="+c.name, func(b *testing.B) {
					benchSubmitters(b, c, sh)
				})
			}
		})
	}
}

func benchSubmitters(b *testing.B, c contender, sh shape) {
	r, err := c.new(workers())
	if err != nil {
		b.Fatal(err)
	}
	defer r.close()
	t := new(tiny)
	if c.queues {
		warmUp(b, func() error { return r.runFrom(sh.users, sh.perUser, t) }, t)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := r.runFrom(sh.users, sh.perUser, t); err != nil {
			b.Fatal(err)
		}
	}
	n := b.N * sh.users * sh.perUser
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "ns/task")
	b.StopTimer()
	if got := t.count(); got != int64(n) {
		b.Fatalf("%d tasks ran, want %d", got, n)
	}
}

// BenchmarkCPU queues 1M tasks of about 1 µs of CPU work each: dispatch
// cost next to useful work.
func BenchmarkCPU(b *testing.B) {
	b.Run("n=1M", func(b *testing.B) {
		benchTasks(b, 1_000_000, false, func() task { return new(cpu) })
	})
}

// roundJobs is one simulated minor collection's job count at 8 workers:
// 8*4 major-heap scan jobs + 8*4 LOS scan jobs + 1 roots job.
const roundJobs = 65

// roundsPerOp rounds make one benchmark operation.
const roundsPerOp = 1000

// A roundRunner runs one round of roundJobs jobs and waits for all of them.
type roundRunner interface {
	round(t task) error
	close()
}

type roundContender struct {
	name string
	new  func(workers int) (roundRunner, error)
}

// tasksRound adapts a task runner: a round is roundJobs tasks, waited for.
type tasksRound struct{ runner }

func (r tasksRound) round(t task) error { return r.run(roundJobs, t) }

func asRounds(c contender) roundContender {
	return roundContender{c.name, func(w int) (roundRunner, error) {
		r, err := c.new(w)
		if err != nil {
			return nil, err
		}
		return tasksRound{r}, nil
	}}
}

// gatedRound is gcbench's pool gated, as SGen runs a parallel collection:
// the jobs are queued while workers may not take them, the gate opens, and
// Join closes it again.
type gatedRound struct {
	p   *workerpool.Pool
	how gatedHow
	buf []jobs.Job
}

// gatedHow is how a gated round hands its jobs over.
type gatedHow int

const (
	perJobThenStart gatedHow = iota // Enqueue per job, then Start (SGen before its fix)
	batchThenStart                  // EnqueueBatch, then Start (SGen's fix)
	startBatch                      // StartBatch: the batch and the gate under one lock, one wake
)

func newGated(how gatedHow, wake workerpool.WakePolicy) func(int) (roundRunner, error) {
	return func(w int) (roundRunner, error) {
		p, err := workerpool.New(workerpool.Options{Workers: w, Wake: wake, Gated: true})
		if err != nil {
			return nil, err
		}
		return &gatedRound{p: p, how: how, buf: make([]jobs.Job, roundJobs)}, nil
	}
}

func (g *gatedRound) round(t task) error {
	for i := range g.buf {
		g.buf[i] = t
	}
	switch g.how {
	case perJobThenStart:
		for _, j := range g.buf {
			if err := g.p.Enqueue(j); err != nil {
				return err
			}
		}
		g.p.Start()
	case batchThenStart:
		if err := g.p.EnqueueBatch(g.buf); err != nil {
			return err
		}
		g.p.Start()
	case startBatch:
		if err := g.p.StartBatch(g.buf); err != nil {
			return err
		}
	}
	return g.p.Join(context.Background())
}
func (g *gatedRound) close() { _ = g.p.Close() }

func roundContenders() []roundContender {
	var cs []roundContender
	for _, c := range allContenders() {
		cs = append(cs, asRounds(c))
	}
	return append(cs,
		roundContender{"gcbench-gated-enqueue-broadcast", newGated(perJobThenStart, workerpool.Broadcast)},
		roundContender{"gcbench-gated-batch-broadcast", newGated(batchThenStart, workerpool.Broadcast)},
		roundContender{"gcbench-gated-startbatch-broadcast", newGated(startBatch, workerpool.Broadcast)},
		roundContender{"gcbench-gated-batch-targeted", newGated(batchThenStart, workerpool.Targeted)},
		roundContender{"gcbench-gated-startbatch-targeted", newGated(startBatch, workerpool.Targeted)},
	)
}

// BenchmarkRounds runs rounds of 65 jobs of about 1 µs each, one round at a
// time, and reports the cost per round. Every contender can run a round and
// wait for it; only gcbench's pool can also hold the jobs behind a gate
// until the whole round is queued (see README.md's table).
func BenchmarkRounds(b *testing.B) {
	for _, c := range roundContenders() {
		b.Run("pool="+c.name, func(b *testing.B) {
			r, err := c.new(workers())
			if err != nil {
				b.Fatal(err)
			}
			defer r.close()
			t := new(cpu)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				for range roundsPerOp {
					if err := r.round(t); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*roundsPerOp), "ns/round")
			b.StopTimer()
			if got, want := t.count(), int64(b.N*roundsPerOp*roundJobs); got != want {
				b.Fatalf("%d jobs ran, want %d", got, want)
			}
		})
	}
}
