package mpsc

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// BenchmarkQueuePush measures producers contending on one list:
// every goroutine of b.RunParallel pushes fresh nodes as fast as it can,
// with no consumer, which is the cost the lock-free list was built to cut
// (epoll's producers all took the ready list's lock). Raise -cpu to add
// producers. The nodes are preallocated; the list is drained and counted
// after the timer stops.
func BenchmarkQueuePush(b *testing.B) {
	for _, k := range listKinds {
		b.Run("kind="+k.name, func(b *testing.B) {
			l := k.new()
			const chunk = 256
			// Each producer claims chunks of nodes and may leave its last
			// chunk partly unused.
			nodes := make([]Node[item], b.N+chunk*(runtime.GOMAXPROCS(0)+1))
			for i := range nodes {
				nodes[i].Value = item{seq: i} // fault the pages in before timing
			}
			var next atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i, end := 0, 0
				for pb.Next() {
					if i == end {
						i = int(next.Add(chunk)) - chunk
						end = i + chunk
					}
					l.Push(&nodes[i])
					i++
				}
			})
			b.StopTimer()
			if got := l.PopAll(func(*Node[item]) {}); got != b.N {
				b.Fatalf("popped %d of %d", got, b.N)
			}
		})
	}
}

// BenchmarkQueuePushPop measures one uncontended push and pop: the
// list's fixed cost on the consumer's own goroutine.
func BenchmarkQueuePushPop(b *testing.B) {
	for _, k := range listKinds {
		b.Run("kind="+k.name, func(b *testing.B) {
			l := k.new()
			var n Node[item]
			for b.Loop() {
				l.Push(&n)
				if _, st := l.TryPop(); st != Popped {
					b.Fatal(st)
				}
			}
		})
	}
}
