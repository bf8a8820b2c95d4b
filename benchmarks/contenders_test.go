package benchmarks

import (
	"context"
	"errors"
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
	reset(to int64) // sets the count back, after a warm-up run
}

// tiny is the smallest useful task: it counts itself (the seed harness's
// per-item counter), so every contender pays the same shared atomic add and
// the benchmark can check that every task ran exactly once.
type tiny struct {
	done atomic.Int64
}

func (t *tiny) do()            { t.done.Add(1) }
func (t *tiny) Run(int)        { t.done.Add(1) }
func (t *tiny) count() int64   { return t.done.Load() }
func (t *tiny) reset(to int64) { t.done.Store(to) }

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
func (t *cpu) Run(int)        { t.do() }
func (t *cpu) count() int64   { return t.done.Load() }
func (t *cpu) reset(to int64) { t.done.Store(to) }

// A runner runs n tasks and returns when all have finished: submitted by
// this goroutine (run), or by users goroutines at once, perUser tasks each
// (runFrom). Either returns when every task has finished.
type runner interface {
	run(n int, t task) error
	runFrom(users, perUser int, t task) error
	close()
}

// fromUsers starts users goroutines that each call submit(perUser), waits
// for all of them and returns the first error. The submitting goroutines
// are part of the workload: every contender pays for them alike.
func fromUsers(users, perUser int, submit func(n int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range users {
		wg.Go(func() {
			if err := submit(perUser); err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// A contender names a way to run tasks and builds its runner for a number
// of workers (the peers' size limit; ignored by unlimited goroutines).
// queues says whether it keeps submitted tasks in storage of its own that
// grows with the backlog (pond's buffer, gcbench's queue blocks): those get a
// warm-up run before timing (see warmUp).
type contender struct {
	name   string
	new    func(workers int) (runner, error)
	queues bool
}

func workers() int { return runtime.GOMAXPROCS(0) }

// peers are every contender that is not gcbench's pool, goroutines first so
// that benchstat compares every column with it.
var peers = []contender{
	{"goroutines", func(int) (runner, error) { return goroutines{}, nil }, false},
	{"errgroup", func(w int) (runner, error) { return errgroupRunner{w}, nil }, false},
	{"conc", func(w int) (runner, error) { return concRunner{w}, nil }, false},
	{"ants", newAnts, false},
	{"pond", newPond, true},
}

// ours are gcbench's pool, ungated on goroutine workers, with per-job
// Enqueue and with EnqueueBatch, under the Targeted wake policy (the
// design's answer to the thundering herd) and Spin (spinning workers and
// direct handoff), on the shared queue and on per-worker shards (built for
// many concurrent submitters). `gcbench pool` sweeps every backend and
// policy.
var ours = []contender{
	{"gcbench-targeted-enqueue", ourPool(workerpool.Targeted, workerpool.Shared, 0), true},
	{"gcbench-targeted-batch", ourPool(workerpool.Targeted, workerpool.Shared, batchSize), true},
	{"gcbench-spin-enqueue", ourPool(workerpool.Spin, workerpool.Shared, 0), true},
	{"gcbench-spin-batch", ourPool(workerpool.Spin, workerpool.Shared, batchSize), true},
	{"gcbench-sharded-targeted-enqueue", ourPool(workerpool.Targeted, workerpool.Sharded, 0), true},
	{"gcbench-sharded-spin-enqueue", ourPool(workerpool.Spin, workerpool.Sharded, 0), true},
	{"gcbench-sharded-spin-batch", ourPool(workerpool.Spin, workerpool.Sharded, batchSize), true},
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
func (goroutines) runFrom(users, perUser int, t task) error {
	var wg sync.WaitGroup
	f := t.do
	err := fromUsers(users, perUser, func(n int) error {
		for range n {
			wg.Go(f)
		}
		return nil
	})
	wg.Wait()
	return err
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
func (r errgroupRunner) runFrom(users, perUser int, t task) error {
	var g errgroup.Group
	g.SetLimit(r.workers)
	f := func() error { t.do(); return nil }
	err := fromUsers(users, perUser, func(n int) error {
		for range n {
			g.Go(f)
		}
		return nil
	})
	return errors.Join(err, g.Wait())
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
func (r concRunner) runFrom(users, perUser int, t task) error {
	p := pool.New().WithMaxGoroutines(r.workers)
	f := t.do
	err := fromUsers(users, perUser, func(n int) error {
		for range n {
			p.Go(f)
		}
		return nil
	})
	p.Wait()
	return err
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
	wg.Add(n) // once: the count per task is the task's Done, as the pool's own count is gcbench's
	for i := range n {
		if err := r.p.Submit(f); err != nil {
			wg.Add(-(n - i))
			return fmt.Errorf("ants: %w", err)
		}
	}
	wg.Wait()
	return nil
}
func (r antsRunner) runFrom(users, perUser int, t task) error {
	var wg sync.WaitGroup
	f := func() { t.do(); wg.Done() }
	err := fromUsers(users, perUser, func(n int) error {
		wg.Add(n)
		for i := range n {
			if err := r.p.Submit(f); err != nil {
				wg.Add(-(n - i))
				return fmt.Errorf("ants: %w", err)
			}
		}
		return nil
	})
	wg.Wait()
	return err
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
	wg.Add(n) // once: the count per task is the task's Done, as the pool's own count is gcbench's
	for i := range n {
		if err := r.p.Go(f); err != nil {
			wg.Add(-(n - i))
			return fmt.Errorf("pond: %w", err)
		}
	}
	wg.Wait()
	return nil
}
func (r pondRunner) runFrom(users, perUser int, t task) error {
	var wg sync.WaitGroup
	f := func() { t.do(); wg.Done() }
	err := fromUsers(users, perUser, func(n int) error {
		wg.Add(n)
		for i := range n {
			if err := r.p.Go(f); err != nil {
				wg.Add(-(n - i))
				return fmt.Errorf("pond: %w", err)
			}
		}
		return nil
	})
	wg.Wait()
	return err
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

// ourPool builds gcbench's pool with a wake policy and queue layout; batch
// = 0 submits each task with Enqueue.
func ourPool(wake workerpool.WakePolicy, q workerpool.QueueLayout, batch int) func(int) (runner, error) {
	return func(w int) (runner, error) {
		p, err := workerpool.New(workerpool.Options{Workers: w, Wake: wake, Queue: q})
		if err != nil {
			return nil, err
		}
		return &ourRunner{p: p, batch: batch}, nil
	}
}

func (r *ourRunner) run(n int, t task) error {
	r.fill(t)
	if err := r.submit(n, t); err != nil {
		return err
	}
	return r.p.Join(context.Background())
}

// runFrom lets every user submit its tasks, one Enqueue each or in batches
// of up to batchSize (all users share one read-only slice: the pool copies
// the jobs), then joins them all.
func (r *ourRunner) runFrom(users, perUser int, t task) error {
	r.fill(t)
	if err := fromUsers(users, perUser, func(n int) error { return r.submit(n, t) }); err != nil {
		return err
	}
	return r.p.Join(context.Background())
}

// fill makes r.buf a batch of t, once per task.
func (r *ourRunner) fill(t task) {
	if r.batch == 0 || (len(r.buf) == r.batch && r.buf[0] == jobs.Job(t)) {
		return
	}
	r.buf = make([]jobs.Job, r.batch)
	for i := range r.buf {
		r.buf[i] = t
	}
}

// submit queues n tasks t: per task, or in batches from r.buf.
func (r *ourRunner) submit(n int, t task) error {
	if r.batch == 0 {
		for range n {
			if err := r.p.Enqueue(t); err != nil {
				return err
			}
		}
		return nil
	}
	for left := n; left > 0; left -= r.batch {
		if err := r.p.EnqueueBatch(r.buf[:min(left, r.batch)]); err != nil {
			return err
		}
	}
	return nil
}
func (r *ourRunner) close() { _ = r.p.Close() }
