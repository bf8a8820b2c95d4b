package mpsc

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"pgregory.net/rapid"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitBound is how long a test waits for nodes or for its producers
// before it fails: a lost push would otherwise spin the consumer, or hold
// a Drain, forever.
const waitBound = time.Minute

// item identifies one push: which producer, and its sequence number there.
type item struct{ producer, seq int }

// listKinds is the table every queue test runs over: the two
// implementations must be indistinguishable through the interface.
var listKinds = []struct {
	name string
	new  func() Queue[item]
}{
	{"mpsc", func() Queue[item] { return new(List[item]) }},
	{"mutex", func() Queue[item] { return new(MutexList[item]) }},
}

func forEachKind(t *testing.T, test func(t *testing.T, newList func() Queue[item])) {
	for _, k := range listKinds {
		t.Run(k.name, func(t *testing.T) { test(t, k.new) })
	}
}

// checker verifies exactly-once delivery and FIFO order per producer.
type checker struct {
	next []int // the sequence number expected next from each producer
}

func newChecker(producers int) *checker { return &checker{next: make([]int, producers)} }

func (c *checker) see(t *testing.T, it item) {
	t.Helper()
	require.Equal(t, c.next[it.producer], it.seq, "producer %d: out of order, duplicated or lost", it.producer)
	c.next[it.producer]++
}

func (c *checker) requireAll(t *testing.T, perProducer []int) {
	t.Helper()
	require.Equal(t, perProducer, c.next, "every producer's every push must be popped exactly once")
}

func TestQueueSequentialFIFO(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		l := newList()
		_, st := l.TryPop()
		require.Equal(t, Empty, st, "a new list is empty")
		nodes := make([]Node[item], 100)
		for round := range 3 { // the same nodes, pushed again after each pop
			for i := range nodes {
				nodes[i].Value = item{0, i}
				l.Push(&nodes[i])
			}
			for i := range nodes {
				n, st := l.TryPop()
				require.Equal(t, Popped, st, "round %d", round)
				require.Same(t, &nodes[i], n, "round %d: FIFO", round)
			}
			_, st = l.TryPop()
			require.Equal(t, Empty, st)
		}
	})
}

// runProducers pushes counts[p] fresh nodes from producer p, all producers
// at once, and returns when every push has returned.
func runProducers(l Queue[item], counts []int) {
	var wg sync.WaitGroup
	for p, n := range counts {
		wg.Go(func() {
			nodes := make([]Node[item], n)
			for i := range nodes {
				nodes[i].Value = item{p, i}
				l.Push(&nodes[i])
			}
		})
	}
	wg.Wait()
}

// consumeConcurrently pushes from all producers while the consumer pops with
// TryPop, and checks exactly-once FIFO-per-producer delivery.
func consumeConcurrently(t *testing.T, l Queue[item], counts []int) {
	total := 0
	for _, n := range counts {
		total += n
	}
	done := make(chan struct{})
	go func() { runProducers(l, counts); close(done) }()
	c := newChecker(len(counts))
	deadline := time.Now().Add(waitBound)
	for got := 0; got < total; {
		n, st := l.TryPop()
		if st != Popped {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d nodes popped within %v", got, total, waitBound)
			}
			runtime.Gosched()
			continue
		}
		c.see(t, n.Value)
		got++
	}
	testwait.Recv(t, done, waitBound, "the producers' return")
	_, st := l.TryPop()
	require.Equal(t, Empty, st, "nothing beyond what was pushed")
	c.requireAll(t, counts)
}

func TestQueueManyProducersOneConsumer(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		for _, producers := range []int{1, 4, 16} {
			counts := make([]int, producers)
			for p := range counts {
				counts[p] = 2000 + 37*p
			}
			consumeConcurrently(t, newList(), counts)
		}
	})
}

func TestQueueDrainWaitsForTheKnownCount(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		l := newList()
		counts := []int{300, 1, 0, 500, 250, 250, 7, 1000}
		total := 0
		for _, n := range counts {
			total += n
		}
		done := make(chan struct{})
		go func() { runProducers(l, counts); close(done) }()
		c := newChecker(len(counts))
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		got, err := l.Drain(ctx, total, func(n *Node[item]) { c.see(t, n.Value) })
		require.NoError(t, err, "%d of %d nodes drained", got, total)
		require.Equal(t, total, got)
		c.requireAll(t, counts)
		testwait.Recv(t, done, waitBound, "the producers' return")
	})
}

func TestQueueDrainStopsWithContext(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		l := newList()
		var node Node[item]
		l.Push(&node)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		got, err := l.Drain(ctx, 2, func(*Node[item]) {})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, got, "the node that had arrived was visited")
		assert.Contains(t, err.Error(), "drained 1 of 2")
	})
}

// Drain of no nodes (or a negative count) visits nothing and reports 0
// visited, leaving the list alone.
func TestQueueDrainOfNothingVisitsNothing(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		l := newList()
		var node Node[item]
		l.Push(&node)
		for _, n := range []int{0, -1} {
			got, err := l.Drain(context.Background(), n, func(*Node[item]) { t.Error("visited a node") })
			require.NoError(t, err)
			assert.Zero(t, got, "Drain(%d)", n)
		}
		assert.Equal(t, 1, l.PopAll(func(*Node[item]) {}))
	})
}

func TestQueuePopAllSeesEveryReturnedPush(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		l := newList()
		counts := []int{100, 200, 300, 400}
		runProducers(l, counts)
		c := newChecker(len(counts))
		got := l.PopAll(func(n *Node[item]) { c.see(t, n.Value) })
		require.Equal(t, 1000, got)
		c.requireAll(t, counts)
		require.Equal(t, 0, l.PopAll(func(*Node[item]) { t.Fatal("visited a node of an empty list") }))
	})
}

// TestQueueReadyListProtocol reuses each producer's single node the
// way the ready-list benchmark protocol does: a producer pushes its node only when its
// counter goes from 0 to 1; the consumer pops a node, then swaps its
// producer's counter to zero. Every event must be counted exactly once, and
// a node must never be pushed while it is still queued.
func TestQueueReadyListProtocol(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		const producers, events = 8, 5000
		l := newList()
		counters := make([]atomic.Int64, producers)
		queued := make([]atomic.Bool, producers)
		nodes := make([]Node[item], producers)
		var wg sync.WaitGroup
		for p := range producers {
			nodes[p].Value = item{producer: p}
			wg.Go(func() {
				for range events {
					if counters[p].Add(1) == 1 {
						if !queued[p].CompareAndSwap(false, true) {
							panic("node pushed while still queued")
						}
						l.Push(&nodes[p])
					}
				}
			})
		}
		var sum int64
		perProducer := make([]int64, producers)
		deadline := time.Now().Add(waitBound)
		for sum < producers*events {
			n, st := l.TryPop()
			if st != Popped {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d events counted within %v", sum, producers*events, waitBound)
				}
				runtime.Gosched()
				continue
			}
			p := n.Value.producer
			require.True(t, queued[p].Swap(false))
			got := counters[p].Swap(0)
			require.Positive(t, got, "a queued producer has events")
			perProducer[p] += got
			sum += got
		}
		testwait.Do(t, waitBound, "the producers' return", wg.Wait)
		require.Equal(t, int64(producers*events), sum)
		for p, got := range perProducer {
			require.Equal(t, int64(events), got, "producer %d", p)
		}
	})
}

func TestNodeMovesBetweenListKinds(t *testing.T) {
	var a List[int]
	var b MutexList[int]
	nodes := make([]Node[int], 10)
	for i := range nodes {
		nodes[i].Value = i
		a.Push(&nodes[i])
	}
	require.Equal(t, 10, a.PopAll(func(n *Node[int]) { b.Push(n) }))
	var order []int
	b.PopAll(func(n *Node[int]) { order = append(order, n.Value); a.Push(n) })
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, order)
	order = order[:0]
	a.PopAll(func(n *Node[int]) { order = append(order, n.Value) })
	require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, order)
}

// TestListReportsAnInterruptedPush stops a push between its two steps,
// as a descheduled producer would, and checks the consumer sees Pending, not
// Empty, while later pushes are hidden behind it, then gets everything in
// order once the push completes.
func TestListReportsAnInterruptedPush(t *testing.T) {
	for _, before := range []int{0, 1, 3} { // nodes fully pushed before the stalled one
		var l List[int]
		nodes := make([]Node[int], before+3)
		for i := range nodes {
			nodes[i].Value = i
		}
		for i := range before {
			l.Push(&nodes[i])
		}
		for i := range before {
			n, st := l.TryPop()
			require.Equal(t, Popped, st)
			require.Equal(t, i, n.Value)
		}
		stalled := &nodes[before]
		prev := l.swap(stalled) // step 1 only
		l.Push(&nodes[before+1])
		l.Push(&nodes[before+2])
		_, st := l.TryPop()
		require.Equal(t, Pending, st, "before=%d: pushes in flight are not emptiness", before)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got, err := l.Drain(ctx, 1, func(*Node[int]) {})
		require.True(t, errors.Is(err, context.Canceled))
		require.Zero(t, got, "the later nodes stay hidden until the stalled push links")
		l.link(prev, stalled) // step 2: the producer resumes
		var order []int
		require.Equal(t, 3, l.PopAll(func(n *Node[int]) { order = append(order, n.Value) }))
		require.Equal(t, []int{before, before + 1, before + 2}, order)
	}
}

func TestPopStatusString(t *testing.T) {
	assert.Equal(t, "popped", Popped.String())
	assert.Equal(t, "empty", Empty.String())
	assert.Equal(t, "pending", Pending.String())
	assert.Equal(t, "PopStatus(7)", PopStatus(7).String())
}

// TestQueueMatchesSliceModel drives one list from a single goroutine
// with random pushes (of fresh or recycled nodes) and pops, against a slice
// used as a FIFO queue.
func TestQueueMatchesSliceModel(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		rapid.Check(t, func(rt *rapid.T) {
			l := newList()
			var model []*Node[item]
			var free []*Node[item]
			seq := 0
			ops := rapid.SliceOfN(rapid.IntRange(0, 2), 1, 200).Draw(rt, "ops")
			for _, op := range ops {
				switch op {
				case 0, 1: // push; 1 prefers a recycled node
					var n *Node[item]
					if op == 1 && len(free) > 0 {
						n, free = free[len(free)-1], free[:len(free)-1]
					} else {
						n = new(Node[item])
					}
					n.Value = item{0, seq}
					seq++
					l.Push(n)
					model = append(model, n)
				case 2:
					n, st := l.TryPop()
					if len(model) == 0 {
						if st != Empty {
							rt.Fatalf("pop of an empty list: %v", st)
						}
						continue
					}
					if st != Popped || n != model[0] {
						rt.Fatalf("pop: got %v %p, want %p", st, n, model[0])
					}
					model = model[1:]
					free = append(free, n)
				}
			}
			want := len(model)
			got := l.PopAll(func(n *Node[item]) {
				if len(model) == 0 || n != model[0] {
					rt.Fatalf("PopAll: extra or out-of-order node")
				}
				model = model[1:]
			})
			if got != want || len(model) != 0 {
				rt.Fatalf("PopAll visited %d of %d nodes", got, want)
			}
		})
	})
}

// TestQueueConcurrentProperty draws the number of producers and
// their push counts and checks exactly-once FIFO-per-producer delivery.
func TestQueueConcurrentProperty(t *testing.T) {
	forEachKind(t, func(t *testing.T, newList func() Queue[item]) {
		rapid.Check(t, func(rt *rapid.T) {
			counts := rapid.SliceOfN(rapid.IntRange(0, 300), 1, 12).Draw(rt, "counts")
			l := newList()
			total := 0
			for _, n := range counts {
				total += n
			}
			done := make(chan struct{})
			go func() { runProducers(l, counts); close(done) }()
			next := make([]int, len(counts))
			deadline := time.Now().Add(waitBound)
			for got := 0; got < total; {
				n, st := l.TryPop()
				if st != Popped {
					if time.Now().After(deadline) {
						rt.Fatalf("%d of %d nodes popped within %v", got, total, waitBound)
					}
					runtime.Gosched()
					continue
				}
				it := n.Value
				if next[it.producer] != it.seq {
					rt.Fatalf("producer %d: got seq %d, want %d", it.producer, it.seq, next[it.producer])
				}
				next[it.producer]++
				got++
			}
			select { // rapid.T is no testing.TB: testwait.Recv by hand
			case <-done:
			case <-time.After(waitBound):
				rt.Fatalf("the producers did not return within %v", waitBound)
			}
			for p := range counts {
				if next[p] != counts[p] {
					rt.Fatalf("producer %d: %d of %d delivered", p, next[p], counts[p])
				}
			}
			if _, st := l.TryPop(); st != Empty {
				rt.Fatalf("extra node after all were delivered: %v", st)
			}
		})
	})
}
