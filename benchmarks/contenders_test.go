package benchmarks

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// A task is one unit of benchmark work, callable both as a plain func()
// (the peers' task type) and as a jobs.Job (ours), through one indirect
// call either way, with no allocation per task.
type task interface {
	jobs.Job
	do()
	count() int64
}

// tiny is the smallest useful task: it counts itself (the seed harness's
// per-item counter), so every contender pays the same shared atomic add and
// the benchmark can check that every task ran exactly once.
type tiny struct {
	done atomic.Int64
}

func (t *tiny) do()          { t.done.Add(1) }
func (t *tiny) Run(int)      { t.done.Add(1) }
func (t *tiny) count() int64 { return t.done.Load() }

// cpuIters xorshift rounds take about 1 µs on the reference machine (an
// AMD EPYC core at GOMAXPROCS 2: 300 rounds measured 478 ns).
const cpuIters = 625

// cpu is a task of about 1 µs of CPU work.
type cpu struct {
	done atomic.Int64
}

//go:noinline
func spin(n int) uint64 {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func (t *cpu) do() {
	if spin(cpuIters) == 0 { // never: keeps the work from being optimized away
		panic("xorshift reached zero")
	}
	t.done.Add(1)
}
func (t *cpu) Run(int)      { t.do() }
func (t *cpu) count() int64 { return t.done.Load() }

// A runner runs n tasks and returns when all have finished.
type runner interface {
	run(n int, t task) error
	close()
}

// A contender names a way to run tasks and builds its runner for a number
// of workers (the peers' size limit; ignored by unlimited goroutines).
type contender struct {
	name string
	new  func(workers int) (runner, error)
}

func workers() int { return runtime.GOMAXPROCS(0) }

// peers are every contender that is not gcbench's pool, goroutines first so
// that benchstat compares every column with it.
var peers = []contender{
	{"goroutines", func(int) (runner, error) { return goroutines{}, nil }},
	{"errgroup", func(w int) (runner, error) { return errgroupRunner{w}, nil }},
	{"conc", func(w int) (runner, error) { return concRunner{w}, nil }},
	{"ants", newAnts},
	{"pond", newPond},
}

// ours are gcbench's pool, ungated on goroutine workers, with per-job
// Enqueue and with EnqueueBatch, under the Targeted wake policy (the
// design's answer to the thundering herd) and Spin (CoreCLR's spin-then-park
// semaphore). `gcbench pool` sweeps every backend and policy.
var ours = []contender{
	{"gcbench-targeted-enqueue", func(w int) (runner, error) { return newOurs(w, workerpool.Targeted, 0) }},
	{"gcbench-targeted-batch", func(w int) (runner, error) { return newOurs(w, workerpool.Targeted, batchSize) }},
	{"gcbench-spin-enqueue", func(w int) (runner, error) { return newOurs(w, workerpool.Spin, 0) }},
	{"gcbench-spin-batch", func(w int) (runner, error) { return newOurs(w, workerpool.Spin, batchSize) }},
}

// goroutines starts one goroutine per task and waits on a WaitGroup.
type goroutines struct{}

func (goroutines) run(n int, t task) error {
	var wg sync.WaitGroup
	f := t.do
	for range n {
		wg.Go(f)
	}
	wg.Wait()
	return nil
}
func (goroutines) close() {}

// errgroupRunner is errgroup.Group with SetLimit(workers): a goroutine per
// task, at most workers at once; Go blocks while the limit is reached.
type errgroupRunner struct{ workers int }

func (r errgroupRunner) run(n int, t task) error {
	var g errgroup.Group
	g.SetLimit(r.workers)
	f := func() error { t.do(); return nil }
	for range n {
		g.Go(f)
	}
	return g.Wait()
}
func (errgroupRunner) close() {}

// concRunner is conc's pool with WithMaxGoroutines(workers). A conc pool
// cannot be reused after Wait in v0.3.0, so each run builds one (about 1 µs).
type concRunner struct{ workers int }

func (r concRunner) run(n int, t task) error {
	p := pool.New().WithMaxGoroutines(r.workers)
	f := t.do
	for range n {
		p.Go(f)
	}
	p.Wait()
	return nil
}
func (concRunner) close() {}

// antsRunner is an ants pool of workers goroutines; ants has no way to wait
// for tasks (by design), so a WaitGroup counts them.
type antsRunner struct{ p *ants.Pool }

func newAnts(w int) (runner, error) {
	p, err := ants.NewPool(w)
	if err != nil {
		return nil, fmt.Errorf("ants: %w", err)
	}
	return antsRunner{p}, nil
}

func (r antsRunner) run(n int, t task) error {
	var wg sync.WaitGroup
	f := func() { t.do(); wg.Done() }
	for range n {
		wg.Add(1)
		if err := r.p.Submit(f); err != nil {
			wg.Done()
			return fmt.Errorf("ants: %w", err)
		}
	}
	wg.Wait()
	return nil
}
func (r antsRunner) close() { r.p.Release() }

// pondRunner is a pond pool of workers goroutines, fed with its
// fire-and-forget Go and waited for with a WaitGroup (pond's task groups
// allocate a future per task, which only makes it slower).
type pondRunner struct{ p pond.Pool }

func newPond(w int) (runner, error) { return pondRunner{pond.NewPool(w)}, nil }

func (r pondRunner) run(n int, t task) error {
	var wg sync.WaitGroup
	f := func() { t.do(); wg.Done() }
	for range n {
		wg.Add(1)
		if err := r.p.Go(f); err != nil {
			wg.Done()
			return fmt.Errorf("pond: %w", err)
		}
	}
	wg.Wait()
	return nil
}
func (r pondRunner) close() { r.p.StopAndWait() }

// batchSize is how many jobs gcbench-batch hands to one EnqueueBatch call:
// the pool copies the jobs into its queue, so one reused slice of this size
// feeds any number of tasks.
const batchSize = 1024

// ourRunner is gcbench's pool; batch = 0 means per-job Enqueue.
type ourRunner struct {
	p     *workerpool.Pool
	batch int
	buf   []jobs.Job
}

func newOurs(w int, wake workerpool.WakePolicy, batch int) (runner, error) {
	p, err := workerpool.New(workerpool.Options{Workers: w, Wake: wake})
	if err != nil {
		return nil, err
	}
	return &ourRunner{p: p, batch: batch}, nil
}

func (r *ourRunner) run(n int, t task) error {
	if r.batch == 0 {
		for range n {
			if err := r.p.Enqueue(t); err != nil {
				return err
			}
		}
		return r.p.Join(context.Background())
	}
	if len(r.buf) != r.batch || r.buf[0] != jobs.Job(t) {
		r.buf = make([]jobs.Job, r.batch)
		for i := range r.buf {
			r.buf[i] = t
		}
	}
	for left := n; left > 0; left -= r.batch {
		if err := r.p.EnqueueBatch(r.buf[:min(left, r.batch)]); err != nil {
			return err
		}
	}
	return r.p.Join(context.Background())
}
func (r *ourRunner) close() { _ = r.p.Close() }
