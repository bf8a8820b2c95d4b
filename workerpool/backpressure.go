package workerpool

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
)

// room is the bound of a pool with Options.MaxQueued > 0: used counts the
// jobs reserved by enqueuers and not yet finished or dropped, and max is
// Workers + MaxQueued. So every job accepted and not started counts — in
// the queue, or taken into a worker's grab and not started — and an idle
// worker is room: a job is refused only when every worker could be busy
// and MaxQueued more wait. An enqueuer reserves before it pushes, with a
// CAS that never lets used pass max, so a batch is reserved whole or not
// at all; the worker that finishes a job (runJobsRecovering), or whoever
// drops it (Discard, Shutdown), releases it.
//
// No lost wake-up: a waiter counts itself in waiters, takes the current
// channel under mu, then tries to reserve; a releaser lowers used, then
// reads waiters and, if any, closes the channel under mu and makes a new
// one. Both pairs are sequentially consistent atomics, so either the
// waiter's try sees the room or the releaser sees the waiter and closes
// the channel the waiter holds (or one it took later, after which its try
// sees the room).
type room struct {
	max     int64
	used    atomic.Int64
	waiters atomic.Int32
	mu      sync.Mutex
	ch      chan struct{}
}

func newRoom(max int) *room { return &room{max: int64(max), ch: make(chan struct{})} }

// tryReserve reserves n places if they are free.
func (r *room) tryReserve(n int) bool {
	for {
		u := r.used.Load()
		if u+int64(n) > r.max {
			return false
		}
		if r.used.CompareAndSwap(u, u+int64(n)) {
			return true
		}
	}
}

// reserve reserves n places, waiting for room until ctx ends.
func (r *room) reserve(ctx context.Context, n int) error {
	if int64(n) > r.max {
		return fmt.Errorf("%w: %d jobs, Workers + MaxQueued = %d", ErrBatchTooLarge, n, r.max)
	}
	if r.tryReserve(n) {
		return nil
	}
	r.waiters.Add(1)
	defer r.waiters.Add(-1)
	for {
		r.mu.Lock()
		ch := r.ch
		r.mu.Unlock()
		if r.tryReserve(n) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("workerpool: waiting for room in the queue: %w", ctx.Err())
		}
	}
}

// release frees n places and wakes the waiters, if any.
func (r *room) release(n int) {
	if n == 0 {
		return
	}
	r.used.Add(-int64(n))
	if r.waiters.Load() > 0 {
		r.mu.Lock()
		close(r.ch)
		r.ch = make(chan struct{})
		r.mu.Unlock()
	}
}

// TryEnqueue queues j if the pool has room for it (Options.MaxQueued) and
// returns ErrQueueFull if not; on an unbounded pool it is Enqueue.
// Its other errors are Enqueue's. The Native backend does not carry it
// (ErrUnsupported).
func (p *Pool) TryEnqueue(j jobs.Job) error {
	if p.initialized() && p.nat != nil {
		return errNative("TryEnqueue")
	}
	if !p.initialized() || p.room == nil || isNil(j) {
		return p.Enqueue(j)
	}
	if !p.room.tryReserve(1) {
		return ErrQueueFull
	}
	return p.enqueueReserved(j)
}

// EnqueueCtx queues j, waiting while the pool is full (Options.MaxQueued)
// until there is room or ctx ends; then it returns an error wrapping
// ctx.Err() and queues nothing. It returns ctx's error, queuing nothing,
// if ctx has already ended. Its other errors are Enqueue's. The Native
// backend does not carry it (ErrUnsupported).
func (p *Pool) EnqueueCtx(ctx context.Context, j jobs.Job) error {
	if p.initialized() && p.nat != nil {
		return errNative("EnqueueCtx")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workerpool: enqueue: %w", err)
	}
	if !p.initialized() || p.room == nil || isNil(j) {
		return p.Enqueue(j)
	}
	if err := p.room.reserve(ctx, 1); err != nil {
		return err
	}
	return p.enqueueReserved(j)
}

// EnqueueBatchCtx is EnqueueBatch that waits for room for the whole batch
// (Options.MaxQueued) until ctx ends, queuing nothing then; a batch larger
// than Workers + MaxQueued is refused at once with ErrBatchTooLarge. The Native
// backend does not carry it (ErrUnsupported).
func (p *Pool) EnqueueBatchCtx(ctx context.Context, js []jobs.Job) error {
	if p.initialized() && p.nat != nil {
		return errNative("EnqueueBatchCtx")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workerpool: enqueue: %w", err)
	}
	return p.enqueueBatchCtx(ctx, js, false)
}

// enqueueReserved is Enqueue for a job whose place is reserved: the
// reservation is given back if the pool refuses the job.
func (p *Pool) enqueueReserved(j jobs.Job) error {
	err := p.enqueueOne(j)
	if err != nil {
		p.room.release(1)
	}
	return err
}

// errNative is the error of a method the Native backend does not carry.
func errNative(method string) error {
	return fmt.Errorf("workerpool: %s on the Native backend: %w", method, ErrUnsupported)
}
