package jobs

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Completion is the record a worker hands to the coordinating goroutine when
// it finishes a job: which job, which worker ran it, and when. From a round's
// completions the coordinator computes per-job durations and load imbalance
// without any lock on the workers' side.
type Completion struct {
	Job    int       // the job's index within its round
	Worker int       // the worker that ran it, or Inline
	Start  time.Time // when Run was called
	End    time.Time // when Run returned
}

// Duration is how long the job ran.
func (c Completion) Duration() time.Duration { return c.End.Sub(c.Start) }

// Timed wraps a job so that each run hands a Completion record to a
// completion list: the job's index, the worker, and when it started and
// ended. The record travels in the Timed's own node, so timing a round's
// jobs allocates nothing; the same Timed can run again once the consumer
// has popped its previous record (drain every round before the next).
// The record is pushed even if the job panics, so that a consumer draining
// a known count is never left waiting for it.
type Timed struct {
	Job   Job
	Index int                        // reported as Completion.Job
	Done  CompletionList[Completion] // where the record goes
	node  Node[Completion]
}

// Run runs the wrapped job and pushes its completion record.
func (t *Timed) Run(worker int) {
	start := time.Now()
	defer func() {
		t.node.Value = Completion{Job: t.Index, Worker: worker, Start: start, End: time.Now()}
		t.Done.Push(&t.node)
	}()
	t.Job.Run(worker)
}

// Node is the intrusive link of a completion list: the producer owns it,
// embeds or preallocates it beside its record, and pushes the node itself, so
// a push allocates nothing. A node is in at most one list at a time; once the
// consumer has popped it, it may be pushed again (to the same or another
// list), which is how per-job records are reused round after round.
type Node[T any] struct {
	// next links the node in an MPSCList. It is written plainly by the
	// producer before the node is published (no other goroutine can see it
	// then) and atomically afterwards, so it is an unsafe.Pointer used with
	// the atomic functions rather than an atomic.Pointer.
	next unsafe.Pointer // *Node[T]
	// link links the node in a MutexList, always under the list's mutex.
	link *Node[T]

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
	// Nothing can be popped until it does; retry later.
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

// CompletionList is a FIFO of nodes with many producers and one consumer.
// Push may be called from any number of goroutines at once; TryPop, PopAll
// and Drain only from one goroutine at a time (the consumer). Nodes pushed by
// one producer are popped in the order it pushed them. MPSCList and
// MutexList implement it.
type CompletionList[T any] interface {
	// Push appends n. n must not be in any list.
	Push(n *Node[T])
	// TryPop removes and returns the oldest node, or reports why it cannot.
	TryPop() (*Node[T], PopStatus)
	// PopAll pops and visits nodes until the list is Empty, yielding the
	// processor while it is Pending. Every push that returned before PopAll
	// was called is visited. It returns how many nodes it visited.
	PopAll(visit func(*Node[T])) int
	// Drain pops and visits exactly n nodes, yielding the processor while the
	// list is Empty or Pending: use it when the consumer knows how many
	// pushes will happen (one per job of a joined round). It returns early
	// with the number visited and an error wrapping ctx.Err() if ctx ends.
	Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error)
}

var (
	_ CompletionList[int] = (*MPSCList[int])(nil)
	_ CompletionList[int] = (*MutexList[int])(nil)
)

// MPSCList is Dmitry Vyukov's intrusive multi-producer single-consumer
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
type MPSCList[T any] struct {
	head unsafe.Pointer // *Node[T], the newest node; nil means &stub
	_    [56]byte       // keep producers' head off the consumer's line
	tail *Node[T]       // the oldest node; nil means &stub; consumer only
	stub Node[T]
}

// Push appends n. It never blocks and never allocates.
func (l *MPSCList[T]) Push(n *Node[T]) {
	l.link(l.swap(n), n)
}

// swap is step 1 of a push: it makes n the newest node and returns its
// predecessor, which does not point at n yet.
func (l *MPSCList[T]) swap(n *Node[T]) (prev *Node[T]) {
	n.next = nil
	prev = (*Node[T])(atomic.SwapPointer(&l.head, unsafe.Pointer(n)))
	if prev == nil {
		prev = &l.stub
	}
	return prev
}

// link is step 2 of a push: it makes n reachable from its predecessor.
func (*MPSCList[T]) link(prev, n *Node[T]) {
	atomic.StorePointer(&prev.next, unsafe.Pointer(n))
}

func (l *MPSCList[T]) loadHead() *Node[T] {
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
func (l *MPSCList[T]) TryPop() (*Node[T], PopStatus) {
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

// PopAll pops and visits nodes until the list is Empty; see CompletionList.
func (l *MPSCList[T]) PopAll(visit func(*Node[T])) int {
	return popAll(l, visit)
}

// Drain pops and visits exactly n nodes; see CompletionList.
func (l *MPSCList[T]) Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error) {
	return drain(ctx, l, n, visit)
}

// MutexList is a FIFO of the same nodes guarded by one sync.Mutex: the
// baseline the lock-free MPSCList is measured against (the spinlock-guarded
// ready list of epoll before Linux 5.1). Its TryPop never reports Pending.
// Its zero value is an empty list; it must not be copied after first use.
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

// PopAll pops and visits nodes until the list is Empty; see CompletionList.
func (l *MutexList[T]) PopAll(visit func(*Node[T])) int {
	return popAll(l, visit)
}

// Drain pops and visits exactly n nodes; see CompletionList.
func (l *MutexList[T]) Drain(ctx context.Context, n int, visit func(*Node[T])) (int, error) {
	return drain(ctx, l, n, visit)
}

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
			return got, fmt.Errorf("jobs: drained %d of %d completions: %w", got, want, err)
		}
		runtime.Gosched()
	}
	return got, nil // want, or 0 if want < 0
}
