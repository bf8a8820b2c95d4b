package workerpool

import (
	"context"

	"github.com/gcbench/gcbench/jobs"
)

// StartBatch is EnqueueBatch followed by Start under the same lock
// acquisition: it queues every job of js and opens the gate with one wake
// decision for every queued job, as Start makes it, and makes that wake
// after releasing the lock, whatever the policy. A gated round is then one
// lock acquisition and one wake call, where EnqueueBatch then Start take
// the lock twice and, under Broadcast and Signal, wake twice, both times
// under the lock: the first wake comes behind the closed gate, so every
// worker it reaches finds nothing to do, and the workers the second one
// wakes find the lock still held by their waker. That is what SGen's fix
// still did: sgen_thread_pool_flush_deferred_jobs broadcast before
// sgen_workers_start_all_workers broadcast again (mono/mono#20634).
//
// On an ungated pool, or with the gate already open, it is EnqueueBatch;
// on a sharded queue (whose shards have their own locks), EnqueueBatch
// then Start. An empty batch just opens the gate. Its errors are
// EnqueueBatch's, and on an error the gate stays as it was.
func (p *Pool) StartBatch(js []jobs.Job) error {
	return p.enqueueBatchCtx(context.Background(), js, true)
}

// Start opens the gate of a gated pool, letting workers take the queued
// jobs, and wakes workers for them with one wake call. It does nothing on an
// ungated pool or when the gate is already open.
func (p *Pool) Start() {
	if !p.initialized() || !p.opts.Gated {
		return
	}
	if p.nat != nil {
		p.nat.start()
		return
	}
	p.lock(&p.coord)
	d := p.openGateLocked(&p.coord)
	p.unlock(&p.coord)
	p.wakeAfterUnlock(d, &p.coord)
}

// openGateLocked opens the gate and applies the wake policy to every queued
// job, as if they had just been enqueued; only Signal, which would
// otherwise count a wake call for nobody, skips an empty queue.
func (p *Pool) openGateLocked(c *counters) deferredWake {
	return p.wakeCondNow(p.openGateDeferredLocked(c), c)
}

// openGateDeferredLocked is openGateLocked with the whole wake left for
// after the unlock: Broadcast's and Signal's too, which wake under the lock
// elsewhere (SGen's protocol). StartBatch wakes so.
func (p *Pool) openGateDeferredLocked(c *counters) deferredWake {
	if p.gateOpen.Load() {
		return noWake
	}
	p.gateOpen.Store(true)
	q := p.queuedLocked()
	if p.opts.Wake == Signal && q == 0 {
		return noWake
	}
	return p.decideWakeLocked(q, c)
}
