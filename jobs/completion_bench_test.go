package jobs

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkCompletionList measures one push and its pop through each list
// kind with several producers pushing at once and one consumer draining:
// the cost of the list itself, which the stress-epoll protocol (gcbench
// readylist) mostly hides behind its producers' counters. Each producer
// cycles through its own ring of nodes and reuses a node only after the
// consumer has popped it.
func BenchmarkCompletionList(b *testing.B) {
	for _, k := range listKinds {
		for _, producers := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("kind=%s/producers=%d", k.name, producers), func(b *testing.B) {
				benchPushPop(b, k.new(), producers)
			})
		}
	}
}

// benchNode is a ring slot: the node and whether it is still queued.
type benchNode struct {
	node   Node[item]
	queued atomic.Bool
	_      [64 - 32 - 4]byte
}

func benchPushPop(b *testing.B, l CompletionList[item], producers int) {
	const ring = 256
	rings := make([][]benchNode, producers)
	for p := range rings {
		rings[p] = make([]benchNode, ring)
		for i := range rings[p] {
			rings[p][i].node.Value = item{p, i}
		}
	}
	total := b.N
	var wg sync.WaitGroup
	b.ResetTimer()
	for p := range producers {
		lo, hi := total*p/producers, total*(p+1)/producers
		wg.Go(func() {
			r := rings[p]
			for i := range hi - lo {
				n := &r[i%ring]
				for n.queued.Load() {
					runtime.Gosched() // the consumer is behind: let it run
				}
				n.queued.Store(true)
				l.Push(&n.node)
			}
		})
	}
	for got := 0; got < total; {
		n, st := l.TryPop()
		if st != Popped {
			runtime.Gosched()
			continue
		}
		rings[n.Value.producer][n.Value.seq].queued.Store(false)
		got++
	}
	wg.Wait()
}
