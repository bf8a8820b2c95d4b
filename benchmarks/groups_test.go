package benchmarks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/sourcegraph/conc/iter"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// Groups and results: the everyday API beside the peers' own. One
// operation submits n tasks of about 1 µs that return an error (always
// nil) as one group, or maps n items to results, and waits; the pools live
// across operations where the peer allows it (conc's pools and errgroup are
// made per operation, as their users make them).
//
//	go test -c -o /tmp/peers.test .
//	for i in 1 2 3 4 5 6; do /tmp/peers.test -test.run '^$' -test.bench 'Group|Map' -test.benchtime=200x; done | tee groups.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /pool -row /n -filter '.unit:sec/task' groups.txt

var groupSizes = []int{16, 1024}

// groupContender runs one group of fns and returns its error.
type groupContender struct {
	name string
	new  func(w int) (run func(fns []func() error) error, close func())
}

var groupContenders = []groupContender{
	{"gcbench-group-go", func(w int) (func([]func() error) error, func()) {
		p := mustPool(w)
		return func(fns []func() error) error {
			g := p.NewGroup(context.Background())
			for _, f := range fns {
				g.Go(func(context.Context, int) error { return f() })
			}
			return g.Wait()
		}, func() { _ = p.Close() }
	}},
	{"gcbench-group-gobatch", func(w int) (func([]func() error) error, func()) {
		p := mustPool(w)
		var batch []func(context.Context, int) error
		return func(fns []func() error) error {
			batch = batch[:0]
			for _, f := range fns {
				batch = append(batch, func(context.Context, int) error { return f() })
			}
			g := p.NewGroup(context.Background())
			g.GoBatch(batch...) // one lock, one wake
			return g.Wait()
		}, func() { _ = p.Close() }
	}},
	{"pond-group", func(w int) (func([]func() error) error, func()) {
		p := pond.NewPool(w)
		return func(fns []func() error) error {
			g := p.NewGroup()
			g.SubmitErr(fns...) // variadic, but one submission per task
			return g.Wait()
		}, p.StopAndWait
	}},
	{"conc-errorpool", func(w int) (func([]func() error) error, func()) {
		return func(fns []func() error) error {
			p := pool.New().WithErrors().WithMaxGoroutines(w)
			for _, f := range fns {
				p.Go(f)
			}
			return p.Wait()
		}, func() {}
	}},
	{"errgroup", func(w int) (func([]func() error) error, func()) {
		return func(fns []func() error) error {
			var g errgroup.Group
			g.SetLimit(w)
			for _, f := range fns {
				g.Go(f)
			}
			return g.Wait()
		}, func() {}
	}},
}

func mustPool(w int) *workerpool.Pool {
	p, err := workerpool.New(workerpool.Options{Workers: w}) // the defaults: Targeted
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkGroup: n error-returning tasks of ~1 µs as one group, then Wait.
func BenchmarkGroup(b *testing.B) {
	for _, n := range groupSizes {
		for _, c := range groupContenders {
			b.Run(fmt.Sprintf("n=%d/pool=%s", n, c.name), func(b *testing.B) {
				run, closePool := c.new(workers())
				defer closePool()
				var t cpu
				fns := make([]func() error, n)
				for i := range fns {
					fns[i] = func() error { t.do(); return nil }
				}
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					if err := run(fns); err != nil {
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
}

// mapContender maps items to results with f.
type mapContender struct {
	name string
	new  func(w int) (run func(items []int, f func(int) (int, error)) ([]int, error), close func())
}

var mapContenders = []mapContender{
	{"gcbench-map", func(w int) (func([]int, func(int) (int, error)) ([]int, error), func()) {
		p := mustPool(w)
		return func(items []int, f func(int) (int, error)) ([]int, error) {
			return workerpool.Map(context.Background(), p, items, func(_ context.Context, _ int, x int) (int, error) { return f(x) })
		}, func() { _ = p.Close() }
	}},
	{"pond-resultgroup", func(w int) (func([]int, func(int) (int, error)) ([]int, error), func()) {
		p := pond.NewResultPool[int](w)
		return func(items []int, f func(int) (int, error)) ([]int, error) {
			g := p.NewGroup()
			for _, x := range items {
				g.SubmitErr(func() (int, error) { return f(x) })
			}
			return g.Wait()
		}, p.StopAndWait
	}},
	{"conc-resultpool", func(w int) (func([]int, func(int) (int, error)) ([]int, error), func()) {
		return func(items []int, f func(int) (int, error)) ([]int, error) {
			// conc's result pools do not keep the input order; its iter.Map does (below).
			p := pool.NewWithResults[int]().WithErrors().WithMaxGoroutines(w)
			for _, x := range items {
				p.Go(func() (int, error) { return f(x) })
			}
			return p.Wait()
		}, func() {}
	}},
	{"conc-iter-maperr", func(w int) (func([]int, func(int) (int, error)) ([]int, error), func()) {
		m := iter.Mapper[int, int]{MaxGoroutines: w}
		return func(items []int, f func(int) (int, error)) ([]int, error) {
			return m.MapErr(items, func(x *int) (int, error) { return f(*x) })
		}, func() {}
	}},
	{"errgroup", func(w int) (func([]int, func(int) (int, error)) ([]int, error), func()) {
		return func(items []int, f func(int) (int, error)) ([]int, error) {
			out := make([]int, len(items))
			var g errgroup.Group
			g.SetLimit(w)
			for i, x := range items {
				g.Go(func() (err error) { out[i], err = f(x); return err })
			}
			return out, g.Wait()
		}, func() {}
	}},
}

// BenchmarkMap: n items mapped by a ~1 µs function to results, then all
// results collected (in order, except conc's result pool).
func BenchmarkMap(b *testing.B) {
	for _, n := range groupSizes {
		for _, c := range mapContenders {
			b.Run(fmt.Sprintf("n=%d/pool=%s", n, c.name), func(b *testing.B) {
				run, closePool := c.new(workers())
				defer closePool()
				var t cpu
				items := make([]int, n)
				for i := range items {
					items[i] = i
				}
				f := func(x int) (int, error) { t.do(); return 2 * x, nil }
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					out, err := run(items, f)
					if err != nil {
						b.Fatal(err)
					}
					if len(out) != n {
						b.Fatalf("%d results, want %d", len(out), n)
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
}
