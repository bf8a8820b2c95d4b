package workerpool

import (
	"context"
	"github.com/gcbench/gcbench/jobs"
)

// Enqueue queues one job. It returns ErrClosed after Close and ErrNilJob
// for a nil job; on a bounded pool (Options.MaxQueued) it first waits for
// room. The pool allocates nothing per job once its queue has grown to the
// largest backlog; whether making the jobs.Job value allocates depends on
// its type (TestSubmitFormsAllocate measures each form):
//
//   - no allocation: a pointer (p.Enqueue(&job)), a struct or array holding
//     only a pointer, a func value that is not a new closure (a top-level
//     function, or a func built once and reused);
//   - one allocation per job: a closure created per job that captures
//     variables, a method value (job.Run), and any other non-pointer value
//     converted to jobs.Job.
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
// bounded queue reserved. On the shared queue it takes the lock, pushes,
// applies the wake policy once and unlocks — SGen's per-job protocol,
// which gcsim measures (its pools are gated) — except on an ungated
// Targeted pool, which publishes through the ingress without the lock and
// takes it only to wake a parked worker when none is on its way, or to
// empty a full ingress (ingress.go says why and how).
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
