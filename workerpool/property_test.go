package workerpool

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"pgregory.net/rapid"
)

// op is one step of a client goroutine's script.
type op struct {
	kind int // opEnqueue, opBatch, opStart, opJoin, opStartBatch, opClose
	n    int // jobs, for opEnqueue (n calls), opBatch and opStartBatch (one call)
}

const (
	opEnqueue = iota
	opBatch
	opStart
	opJoin
	opStartBatch
	opClose
)

// idJob marks its own slot in a shared run-count table.
type idJob struct {
	runs []atomic.Int32
	id   int
}

func (j idJob) Run(int) { j.runs[j.id].Add(1) }

// TestPropertyExactlyOnce runs random scripts of Enqueue, EnqueueBatch,
// Start, StartBatch, Join and Close from several goroutines at once
// against every backend × policy, gated or not, and checks that every
// accepted job ran exactly once, every refused one never, refusals happen
// only after Close, and each successful Join saw its goroutine's earlier
// jobs finished.
// rapid prints the failing seed and a minimal script on failure.
func TestPropertyExactlyOnce(t *testing.T) {
	forEachConfig(t, func(t *testing.T, c config) {
		rapid.Check(t, func(rt *rapid.T) {
			workers := rapid.IntRange(1, 4).Draw(rt, "workers")
			gated := rapid.Bool().Draw(rt, "gated")
			opGen := rapid.Custom(func(rt *rapid.T) op {
				return op{
					kind: rapid.IntRange(opEnqueue, opClose).Draw(rt, "kind"),
					n:    rapid.IntRange(0, 40).Draw(rt, "n"),
				}
			})
			scripts := rapid.SliceOfN(rapid.SliceOfN(opGen, 1, 12), 2, 5).Draw(rt, "scripts")
			// A tiny ingress (ungated Targeted) makes enqueuers find it full.
			cells := rapid.SampledFrom([]int{2, 8, ingressCells}).Draw(rt, "ingress")
			checkScripts(t, rt, Options{Workers: workers, Backend: c.b, Wake: c.w, Queue: c.q, Gated: gated}, cells, scripts)
		})
	})
}

// TestExactlyOnceRegressions replays the scripts rapid found failing
// before the bugs they caught were fixed (rapid's own record of them
// stopped loading when the test's draws changed).
func TestExactlyOnceRegressions(t *testing.T) {
	e := func(n int) op { return op{opEnqueue, n} }
	b := func(n int) op { return op{opBatch, n} }
	s := op{kind: opStart}
	j := op{kind: opJoin}
	cl := op{kind: opClose}
	for _, tc := range []struct {
		name    string
		b       Backend
		w       WakePolicy
		workers int
		scripts [][]op
	}{
		// A gated pool's only worker, and one job enqueued by another
		// goroutine: the job never ran (threads, targeted and spin).
		{"threads/targeted", Threads, Targeted, 1, [][]op{{e(0)}, {e(1)}}},
		{"threads/spin", Threads, Spin, 1, [][]op{{e(0)}, {e(1)}}},
		// Joins that never returned (goroutines signal and spin, threads broadcast).
		{"goroutines/signal", Goroutines, Signal, 1, [][]op{
			{e(8), b(0), e(4), e(2), b(0), b(0), e(40), cl, e(2), e(1), b(4), e(4)}, {e(0), b(3), b(3)}, {j},
			{e(0), e(0), b(1), b(1), e(1)}, {e(17)}}},
		{"goroutines/spin", Goroutines, Spin, 1, [][]op{
			{b(2)}, {s, b(27), s, j, s, j, e(2), cl, b(23), cl}, {b(6), cl, e(9), j, e(35), j}}},
		{"threads/broadcast", Threads, Broadcast, 2, [][]op{
			{b(6)}, {b(4), cl, cl}, {cl, e(3), b(32), s, j, b(1)}, {cl, s, cl, s, b(17)}, {b(14)}}},
		{"goroutines/broadcast", Goroutines, Broadcast, 1, [][]op{
			{s, cl, e(10), s, e(1), cl, j, e(12)}, {e(2), cl, e(12), b(0), b(19), s, e(18), e(10), b(2)}}},
		{"goroutines/targeted", Goroutines, Targeted, 3, [][]op{
			{s, s}, {e(10), j, e(5), cl, j, cl, s, e(35), e(2), j, b(3), j}}},
		{"threads/signal", Threads, Signal, 2, [][]op{
			{b(0), e(6)}, {e(11), b(23), s, e(2), b(1), b(1), e(9), e(15), cl, e(17)},
			{cl, e(28), e(16), cl, j, b(13), b(2), j, b(0), e(11), cl}, {e(6)}}},
	} {
		for _, q := range allQueues {
			t.Run(fmt.Sprintf("%s/%v", tc.name, q), func(t *testing.T) {
				checkScripts(t, t, Options{Workers: tc.workers, Backend: tc.b, Wake: tc.w, Queue: q, Gated: true}, ingressCells, tc.scripts)
			})
		}
	}
}

// fataler is what checkScripts reports a failure to: a *rapid.T, or a
// *testing.T replaying a recorded script.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// checkScripts runs scripts, one goroutine each, against a pool of opts
// with an ingress of cells, and checks that every accepted job ran exactly
// once, every refused one never, refusals happen only after Close, and
// each successful Join saw its goroutine's earlier jobs finished.
func checkScripts(t *testing.T, rt fataler, opts Options, cells int, scripts [][]op) {
	total := 0
	for _, s := range scripts {
		for _, o := range s {
			total += o.n
		}
	}
	runs := make([]atomic.Int32, total)
	accepted := make([]atomic.Bool, total)
	p, err := start(opts, cells)
	if err != nil {
		rt.Fatalf("New: %v", err)
	}
	var closed atomic.Bool
	ctx := timeoutCtx(t)
	failures := make(chan string, 64)
	fail := func(format string, args ...any) {
		select {
		case failures <- fmt.Sprintf(format, args...):
		default:
		}
	}
	var wg sync.WaitGroup
	next := 0
	for _, script := range scripts {
		first := next
		for _, o := range script {
			next += o.n
		}
		wg.Add(1)
		go func(script []op, id int) {
			defer wg.Done()
			var mine []int
			batch := make([]jobs.Job, 0, 40)
			check := func(err error, ids ...int) {
				switch {
				case err == nil:
					for _, i := range ids {
						accepted[i].Store(true)
					}
					mine = append(mine, ids...)
				case errors.Is(err, ErrClosed):
					if !closed.Load() {
						fail("ErrClosed before Close")
					}
				default:
					fail("enqueue: %v", err)
				}
			}
			for _, o := range script {
				switch o.kind {
				case opEnqueue:
					for range o.n {
						check(p.Enqueue(idJob{runs, id}), id)
						id++
					}
				case opBatch, opStartBatch:
					batch = batch[:0]
					ids := make([]int, o.n)
					for k := range o.n {
						batch = append(batch, idJob{runs, id})
						ids[k] = id
						id++
					}
					if o.kind == opBatch {
						check(p.EnqueueBatch(batch), ids...)
					} else {
						check(p.StartBatch(batch), ids...)
					}
				case opStart:
					p.Start()
				case opJoin:
					if err := p.Join(ctx); err != nil {
						fail("Join: %v", err)
					}
					for _, i := range mine {
						if r := runs[i].Load(); r != 1 {
							fail("after Join, own job %d ran %d times", i, r)
						}
					}
				case opClose:
					closed.Store(true)
					if err := p.Close(); err != nil {
						fail("Close: %v", err)
					}
				}
			}
		}(script, first)
	}
	wg.Wait()
	closed.Store(true)
	if err := p.Close(); err != nil {
		rt.Fatalf("Close: %v", err)
	}
	close(failures)
	for f := range failures {
		rt.Fatal(f)
	}
	for i := range runs {
		want := int32(0)
		if accepted[i].Load() {
			want = 1
		}
		if got := runs[i].Load(); got != want {
			rt.Fatalf("job %d (accepted %v) ran %d times", i, accepted[i].Load(), got)
		}
	}
	if got, want := p.Stats().TotalJobsRun(), countTrue(accepted); got != want {
		rt.Fatalf("Stats counts %d jobs, %d were accepted", got, want)
	}
}

func countTrue(bs []atomic.Bool) uint64 {
	var n uint64
	for i := range bs {
		if bs[i].Load() {
			n++
		}
	}
	return n
}
