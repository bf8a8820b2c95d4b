package workerpool

import (
	"context"
	"github.com/gcbench/gcbench/jobs"
)

// Enqueue queues one job: one lock acquisition and one wake decision per
// call — except on an ungated Targeted pool with the shared queue, where it
// takes no lock unless a parked worker must be woken (below). It returns
// ErrClosed after Close and ErrNilJob for a nil job. It allocates nothing
// beyond the queue's occasional growth; whether making the jobs.Job value
// allocates depends on its type (below).
//
// Lock-free enqueue. An ungated Targeted pool on the shared queue puts an
// ingress in front of its queue: 1024 cells after Dmitry Vyukov's bounded
// MPMC queue, whose one consumer is whoever holds the queue lock. Enqueue
// reserves a position with one CAS and publishes its job in the position's
// cell without taking the lock; a worker, under the lock, takes its grab
// from the queue's blocks while they hold jobs (they are older) and
// otherwise straight from the cells. Enqueue takes the lock only to wake a
// parked worker when none is already on its way — the Targeted rule then
// applies as after a locked enqueue — or to move the jobs of a full
// ingress to the blocks. With one fast submitter the lock was the
// bottleneck: each enqueue took it, and workers coming back for a grab
// queued behind the submitter. The order stays FIFO, Join's sequence
// numbers stay exact, and Close refuses every later reservation at once
// (ingress.go). EnqueueBatch, gated pools and the other policies keep the
// locked path, so SGen's per-job protocol — lock, push, wake under the
// lock — is what gcsim measures (its pools are gated).
//
// Submitting without allocating. The queue stores jobs.Job interface
// values in blocks reused from round to round, so Enqueue, EnqueueFunc,
// EnqueueBatch and StartBatch allocate nothing per job once the queue has
// grown to the largest backlog. What a submission costs in allocations is
// decided by making the job value, before the call (TestSubmitFormsAllocate
// measures each form with testing.AllocsPerRun):
//
//   - no allocation: a pointer (p.Enqueue(&job)), a struct or array holding
//     only a pointer, a func value that is not a new closure
//     (p.EnqueueFunc(run) for a top-level function or a func built once and
//     reused), a batch slice reused across calls;
//   - one allocation per job: a closure created per job that captures
//     variables (p.EnqueueFunc(func(int) { use(i) })), a method value
//     (p.EnqueueFunc(job.Run)), and any other non-pointer value converted
//     to jobs.Job (a struct of two words is copied to the heap).
//
// For many small jobs, keep the per-job state in a slice and enqueue
// pointers to its elements, or one job per range of it.
func (p *Pool) Enqueue(j jobs.Job) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if isNil(j) {
		return ErrNilJob
	}
	if p.nat != nil {
		return p.nat.enqueue(j, nil, false)
	}
	if p.room != nil {
		if err := p.room.reserve(context.Background(), 1); err != nil {
			return err
		}
		return p.enqueueReserved(j)
	}
	return p.enqueueOne(j)
}

// enqueueOne is Enqueue for a valid j on a Go backend, its place in a
// bounded queue reserved.
func (p *Pool) enqueueOne(j jobs.Job) error {
	if p.shards != nil {
		return p.pushSharded(j, nil)
	}
	if p.in != nil {
		return p.pushIngress(j)
	}
	p.lock(&p.enq)
	if p.closed.Load() {
		p.unlock(&p.coord)
		return ErrClosed
	}
	p.q.push(j)
	p.pushed.Add(1)
	d := p.wakeLocked(1, &p.enq)
	p.unlock(&p.coord) // p.enq is ours only while we hold mu
	p.wakeAfterUnlock(d, &p.coord)
	if p.obs != nil {
		p.obs.Enqueued(1)
	}
	return nil
}

// EnqueueFunc queues f as one job: Enqueue(jobs.Func(f)), with the same
// cost and errors, and ErrNilJob for a nil f. It stores the func value
// itself and allocates nothing; a closure that captures variables was
// allocated when it was created (see Enqueue).
func (p *Pool) EnqueueFunc(f func(worker int)) error {
	if p.initialized() && f == nil {
		return ErrNilJob
	}
	return p.Enqueue(jobs.Func(f))
}

// isNil reports whether j is no job: nil, or a nil jobs.Func, which would
// only panic when a worker ran it.
func isNil(j jobs.Job) bool {
	f, isFunc := j.(jobs.Func)
	return j == nil || isFunc && f == nil
}

// EnqueueBatch queues every job of js, in order, under one lock acquisition
// and with one wake decision for the whole batch. The pool copies the job
// values into its own storage: the caller may reuse js when it returns. It
// returns ErrClosed after Close and ErrNilJob, queuing nothing, if any job
// is nil. An empty batch is a no-op (ErrClosed after Close).
func (p *Pool) EnqueueBatch(js []jobs.Job) error {
	return p.enqueueBatchCtx(context.Background(), js, false)
}

// enqueueBatchCtx is EnqueueBatch (StartBatch if start), waiting for room
// in a bounded queue until ctx ends.
func (p *Pool) enqueueBatchCtx(ctx context.Context, js []jobs.Job, start bool) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	for _, j := range js {
		if isNil(j) {
			return ErrNilJob
		}
	}
	if len(js) == 0 && p.closed.Load() {
		return ErrClosed
	}
	start = start && p.opts.Gated
	if p.nat != nil {
		if len(js) == 0 && !start {
			return nil
		}
		return p.nat.enqueue(nil, js, start)
	}
	if p.room != nil && len(js) > 0 {
		if err := p.room.reserve(ctx, len(js)); err != nil {
			return err
		}
		if err := p.pushBatch(js, start); err != nil {
			p.room.release(len(js))
			return err
		}
		return nil
	}
	return p.pushBatch(js, start)
}

// pushBatch queues a valid, non-empty batch js (or opens the gate for an
// empty one) on a Go backend, its places in a bounded queue reserved.
func (p *Pool) pushBatch(js []jobs.Job, start bool) error {
	if len(js) == 0 || p.shards != nil {
		var err error
		if len(js) > 0 {
			err = p.pushSharded(nil, js)
		}
		if err == nil && start {
			p.Start()
		}
		return err
	}
	p.lock(&p.enq)
	if p.closed.Load() {
		p.unlock(&p.coord)
		return ErrClosed
	}
	p.pushed.Add(uint64(len(js))) // counted before the ingress is moved: see ingress
	if p.in != nil {
		p.in.moveAll(&p.q)
	}
	p.q.pushAll(js)
	var d deferredWake
	if start && !p.gateOpen.Load() {
		d = p.openGateDeferredLocked(&p.enq)
	} else {
		d = p.wakeLocked(len(js), &p.enq)
	}
	p.unlock(&p.coord)
	p.wakeAfterUnlock(d, &p.coord)
	if p.obs != nil {
		p.obs.Enqueued(len(js))
	}
	return nil
}
