package mpsc

import (
	"context"
	"sync"
)

// MutexList is a FIFO of the same nodes guarded by one sync.Mutex: the
// baseline the lock-free List is compared with (every producer and the
// consumer serialize on one lock, as epoll's producers did on its ready
// list's lock before it was made lockless). Its TryPop never reports
// Pending. Its zero value is an empty list; it must not be copied after
// first use.
type MutexList[T any] struct {
	mu         sync.Mutex
	head, tail *Node[T] // oldest, newest
}

// Push appends n under the mutex.
func (l *MutexList[T]) Push(n *Node[T]) {
	n.link = nil
	l.mu.Lock()
	if l.tail == nil {
		l.head = n
	} else {
		l.tail.link = n
	}
	l.tail = n
	l.mu.Unlock()
}

// TryPop removes and returns the oldest node, or reports Empty.
func (l *MutexList[T]) TryPop() (*Node[T], PopStatus) {
	l.mu.Lock()
	n := l.head
	if n == nil {
		l.mu.Unlock()
		return nil, Empty
	}
	l.head = n.link
	if l.head == nil {
		l.tail = nil
	}
	l.mu.Unlock()
	n.link = nil
	return n, Popped
}

// PopAll pops and visits nodes until the list is Empty; see Queue.
func (l *MutexList[T]) PopAll(visit func(*Node[T])) int {
	return popAll(l, visit)
}

// Drain pops and visits exactly n nodes; see Queue.
func (l *MutexList[T]) Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error) {
	return drain(ctx, l, n, visit)
}
