package mpsc

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Node is the intrusive link of a queue: the producer owns it, embeds or
// preallocates it beside its record, and pushes the node itself, so a push
// allocates nothing. A node is in at most one queue at a time; once the
// consumer has popped it, it may be pushed again (to the same or another
// queue, of either implementation), so one node can carry a producer's
// record round after round.
type Node[T any] struct {
	// next links the node in a List. It is written plainly by the producer
	// before the node is published (no other goroutine can see it then) and
	// atomically afterwards, so it is an unsafe.Pointer used with the atomic
	// functions rather than an atomic.Pointer.
	next unsafe.Pointer // *Node[T]
	// link links the node in a MutexList, always under the list's mutex.
	link *Node[T]

	// Value is the producer's record. The producer writes it before Push;
	// the consumer reads it after popping the node.
	Value T
}

// PopStatus says what TryPop found.
type PopStatus int

const (
	// Popped: TryPop returned the oldest node.
	Popped PopStatus = iota
	// Empty: no push had started when TryPop looked.
	Empty
	// Pending: pushes have started but the oldest of them has not linked its
	// node yet (its producer is between its two steps, perhaps descheduled).
	// Nothing can be popped until it does; retry later. Only List reports it.
	Pending
)

// String returns the status's lower-case name.
func (s PopStatus) String() string {
	switch s {
	case Popped:
		return "popped"
	case Empty:
		return "empty"
	case Pending:
		return "pending"
	}
	return fmt.Sprintf("PopStatus(%d)", int(s))
}

// Queue is a FIFO of nodes with many producers and one consumer. Push may be
// called from any number of goroutines at once; TryPop, PopAll and Drain
// only from one goroutine at a time (the consumer). Nodes pushed by one
// producer are popped in the order it pushed them. List and MutexList
// implement it.
type Queue[T any] interface {
	// Push appends n. n must not be in any queue.
	Push(n *Node[T])
	// TryPop removes and returns the oldest node, or reports why it cannot.
	TryPop() (*Node[T], PopStatus)
	// PopAll pops and visits nodes until the queue is Empty, yielding the
	// processor while it is Pending. Every push that returned before PopAll
	// was called is visited. It returns how many nodes it visited.
	PopAll(visit func(*Node[T])) int
	// Drain pops and visits exactly n nodes, yielding the processor while the
	// queue is Empty or Pending: use it when the consumer knows how many
	// pushes will happen (one per job of a joined round). It returns early
	// with the number visited and an error wrapping ctx.Err() if ctx ends.
	Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error)
}

var (
	_ Queue[int] = (*List[int])(nil)
	_ Queue[int] = (*MutexList[int])(nil)
)

// List is Dmitry Vyukov's intrusive multi-producer single-consumer
// node-based queue. Its zero value is an empty list; it must not be copied
// after first use.
//
// The list is a singly linked chain from tail (the oldest node, consumer
// only) to head (the newest, shared by producers), with a stub node of its
// own that keeps the chain non-empty. A push is wait-free:
//
//	n.next = nil
//	prev = swap(&head, n)   // 1: the node is now the newest
//	prev.next = n           // 2: the node is reachable from tail
//
// Step 1 orders the producers — the one atomic read-modify-write on shared
// state, with no loop — and step 2 touches only the predecessor, which no
// other producer writes. (Go's atomic stores are sequentially consistent, so
// on amd64 step 2 is an XCHG too, where C would use a plain release store.)
//
// The caveat, on the consumer's side: between steps 1 and 2 the chain is
// broken at prev. If that producer is descheduled there, every node pushed
// after it is already queued but unreachable, and the consumer cannot pop
// anything — not even nodes whose pushes have long returned — until the
// producer resumes. The queue is linearizable for producers, but not
// lock-free for the consumer. The API makes this visible instead of
// mistaking it for emptiness: TryPop reports Pending (pushes in flight,
// retry) apart from Empty (no push has started), PopAll keeps retrying while
// Pending so it never misses a completed push, and Drain waits, yielding the
// processor so the stalled producer can run, until its known count of nodes
// has arrived.
//
// The consumer pops node t when t.next is set; if t is the last node it
// pushes the stub behind t so that t gains a successor and can be handed
// out, and it skips the stub whenever it reaches it. A popped node is no
// longer referenced by the list, so its owner may push it again at once:
// there is no ABA problem and no memory reclamation scheme is needed.
type List[T any] struct {
	head unsafe.Pointer // *Node[T], the newest node; nil means &stub
	_    [56]byte       // keep producers' head off the consumer's line
	tail *Node[T]       // the oldest node; nil means &stub; consumer only
	stub Node[T]
}

// Push appends n. It never blocks and never allocates.
func (l *List[T]) Push(n *Node[T]) {
	l.link(l.swap(n), n)
}

// swap is step 1 of a push: it makes n the newest node and returns its
// predecessor, which does not point at n yet.
func (l *List[T]) swap(n *Node[T]) (prev *Node[T]) {
	n.next = nil
	prev = (*Node[T])(atomic.SwapPointer(&l.head, unsafe.Pointer(n)))
	if prev == nil {
		prev = &l.stub
	}
	return prev
}

// link is step 2 of a push: it makes n reachable from its predecessor.
func (*List[T]) link(prev, n *Node[T]) {
	atomic.StorePointer(&prev.next, unsafe.Pointer(n))
}

func (l *List[T]) loadHead() *Node[T] {
	if h := (*Node[T])(atomic.LoadPointer(&l.head)); h != nil {
		return h
	}
	return &l.stub
}

func loadNext[T any](n *Node[T]) *Node[T] {
	return (*Node[T])(atomic.LoadPointer(&n.next))
}

// TryPop removes and returns the oldest node. It returns Empty when no push
// has started and Pending when a push has swapped in its node but its
// predecessor is not linked yet (see the type's comment). Consumer only.
func (l *List[T]) TryPop() (*Node[T], PopStatus) {
	tail := l.tail
	if tail == nil {
		tail = &l.stub
	}
	next := loadNext(tail)
	if tail == &l.stub {
		if next == nil {
			if l.loadHead() == &l.stub {
				return nil, Empty
			}
			return nil, Pending
		}
		l.tail = next
		tail, next = next, loadNext(next)
	}
	if next != nil {
		l.tail = next
		return tail, Popped
	}
	if tail != l.loadHead() {
		return nil, Pending // a producer swapped head but has not linked tail.next
	}
	// tail is the only node: give it a successor so it can be handed out.
	l.Push(&l.stub)
	if next = loadNext(tail); next != nil {
		l.tail = next
		return tail, Popped
	}
	return nil, Pending // a push slipped in between the check and the stub
}

// PopAll pops and visits nodes until the list is Empty; see Queue.
func (l *List[T]) PopAll(visit func(*Node[T])) int {
	return popAll(l, visit)
}

// Drain pops and visits exactly n nodes; see Queue.
func (l *List[T]) Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error) {
	return drain(ctx, l, n, visit)
}

// popper is the consumer side that PopAll and Drain are built on.
type popper[T any] interface {
	TryPop() (*Node[T], PopStatus)
}

func popAll[T any](l popper[T], visit func(*Node[T])) int {
	count := 0
	for {
		n, st := l.TryPop()
		switch st {
		case Popped:
			visit(n)
			count++
		case Empty:
			return count
		case Pending:
			runtime.Gosched() // let the interrupted producer finish its push
		}
	}
}

func drain[T any](ctx context.Context, l popper[T], want int, visit func(*Node[T])) (int, error) {
	got := 0
	for got < want {
		n, st := l.TryPop()
		if st == Popped {
			visit(n)
			got++
			continue
		}
		if err := ctx.Err(); err != nil {
			return got, fmt.Errorf("mpsc: drained %d of %d nodes: %w", got, want, err)
		}
		runtime.Gosched()
	}
	return got, nil // want, or 0 if want < 0
}
