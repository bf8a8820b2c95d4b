package workerpool

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// Close shuts the pool down gracefully: it refuses new jobs (Enqueue,
// EnqueueFunc, EnqueueBatch and StartBatch return ErrClosed), opens the
// gate, lets the workers run every accepted job, and returns once every
// worker has exited — for Threads, once every worker's OS thread is gone.
// It returns the panics of jobs that no Join collected (a group's panics
// are its Wait's), as Join would have reported them. Close is idempotent;
// every call returns the first call's result.
//
// A job must not call Close, nor Shutdown with a context of its own: it
// would wait for its own worker to exit. Go has no goroutine identity, so
// Close cannot tell such a call; Shutdown, Join and a group's WaitCtx given
// the context a group's job received return ErrCalledFromJob instead. The
// Native backend can tell its own worker threads: there Close, Shutdown
// and Join called inside a job return ErrCalledFromJob, and a later Close
// from outside still closes.
func (p *Pool) Close() error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if p.nat != nil && p.nat.calledFromJob() { // before the once: a later Close must still close
		return fmt.Errorf("workerpool: close: %w", ErrCalledFromJob)
	}
	p.closeOnce.Do(func() { p.closeErr = p.shutdown() })
	return p.closeErr
}

// Discard removes every job still queued — accepted, not yet started by a
// worker — and returns how many it removed. On an ungated pool that
// includes the unstarted jobs of the workers' grabs, but for those a
// worker has claimed to run next (fewer than it ran from that grab); on a
// gated pool (the SGen round) a grab's jobs still run (at most MaxGrab per
// worker). Jobs already
// running finish as usual. A discarded job never runs and is not counted in
// Stats.JobsRun (Stats.Dropped counts it); Join counts it as done, so a
// Join waits only for jobs that run, and a Close after Discard waits only
// for the running ones; a discarded job of a group makes the group's Wait
// report it (ErrDropped). It is for abandoning queued work, for example
// when the caller's context ends. Without groups its time does not depend
// on the number of jobs (one lock per shard when sharded): the queue's
// storage is left to the Go collector; with groups it visits each removed
// job once to tell its group. On an ungated Targeted pool, whose Enqueue
// publishes without the lock, it waits, as EnqueueBatch does, for an
// Enqueue caught between reserving its place and publishing its job, so
// that no job accepted before it is left behind.
func (p *Pool) Discard() int {
	if !p.initialized() {
		return 0
	}
	if p.nat != nil {
		return p.nat.discard()
	}
	return p.discard(errDiscarded)
}

// errDiscarded is the cause of a group's jobs that Discard dropped.
var errDiscarded = errors.New("workerpool: removed by Discard")

// discard is Discard on a Go backend; cause says why a group's dropped
// jobs were dropped (its Wait reports it).
func (p *Pool) discard(cause error) int {
	c := &p.coord
	var drop func(jobs.Job)
	if p.tracked.Load() {
		drop = func(j jobs.Job) {
			if d, ok := j.(dropper); ok {
				d.drop(cause)
			}
		}
	}
	n := 0
	if p.shards != nil {
		n = p.discardSharded(drop)
	}
	p.lock(c)
	if p.shards == nil {
		if p.in != nil {
			// All, not just up to a position still being written: the
			// jobs behind it were accepted by Enqueues that returned.
			p.in.moveAll(&p.q)
		}
		n = p.q.len()
		if drop != nil {
			p.q.each(drop)
		}
		p.q.clear()
		p.popped.Add(uint64(n)) // taken, as far as Join's targets are concerned
	}
	n += p.dropGrabsLocked(drop)
	if p.room != nil {
		p.room.release(n)
	}
	p.dropped.Add(uint64(n))
	p.wakeDoneJoinsLocked(c)
	p.unlock(c)
	return n
}

// shutdown is Close: closed, then (sharded) no push in flight, then sealed
// with the gate open and every worker woken; it waits for them to exit.
func (p *Pool) shutdown() error {
	if p.nat != nil {
		p.closed.Store(true)
		return p.nat.close()
	}
	c := &p.coord
	if p.shards != nil {
		p.closed.Store(true)
		p.sealShards()
	}
	p.lock(c)
	p.closed.Store(true)
	if p.in != nil {
		p.in.close()
	}
	p.sealed.Store(true)
	p.gateOpen.Store(true)
	release := p.wakeEveryoneLocked(c)
	p.unlock(c)
	if release > 0 {
		c.addFutex(p.sema.release(release))
	}
	p.wg.Wait()
	err := p.awaitThreadExit()
	p.lock(c)
	panics := p.takePanicsLocked()
	p.unlock(c)
	return errors.Join(panics, err)
}

// stopAccepting makes every later enqueue return ErrClosed, as Close does
// first.
func (p *Pool) stopAccepting() {
	c := &p.coord
	p.lock(c)
	p.closed.Store(true)
	if p.in != nil {
		p.in.close()
	}
	p.unlock(c)
	if p.shards != nil {
		p.sealShards() // no push that saw the pool open is still in flight
	}
}

// Shutdown shuts the pool down gracefully without interrupting any
// running job, as http.Server.Shutdown does a server: it stops accepting
// jobs at once (the enqueue methods return ErrClosed), lets the workers run
// the queued jobs, and waits for every job to finish and every worker to
// exit. It then returns what Close returns: the panics that no Join or
// group's Wait collected.
//
// If ctx ends first, Shutdown drops the jobs not yet started (as Discard
// does) and returns at once, with an error that wraps ctx.Err() and says
// how many jobs it dropped and how many were still running; when it
// dropped jobs, errors.As finds a *DroppedError with their count and
// ctx's cause, and each group whose jobs it dropped reports them to its
// own Wait with that cause. The running jobs finish in the background: a
// later Close waits for them and returns their panics.
//
// Given the context a group's job received, it returns ErrCalledFromJob at
// once. After Shutdown, Close returns when the running jobs have finished.
// On the Native backend it is Close, whatever ctx does.
func (p *Pool) Shutdown(ctx context.Context) error {
	if !p.initialized() {
		return ErrNotInitialized
	}
	if p.calledFromJob(ctx) {
		return fmt.Errorf("workerpool: shutdown: %w", ErrCalledFromJob)
	}
	if p.nat != nil {
		return p.Close()
	}
	p.stopAccepting()
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		return err
	case <-ctx.Done():
	}
	cause := context.Cause(ctx)
	e := &shutdownError{ctxErr: ctx.Err()}
	if n := p.discard(fmt.Errorf("workerpool: shutdown: %w", cause)); n > 0 {
		e.dropped = &DroppedError{Count: n, Cause: cause}
	}
	e.running = p.runningJobs()
	if e.running > 0 {
		return e
	}
	err := <-closed // nothing holds the workers: they are on their way out
	if e.dropped == nil {
		return err // the pool shut down whole, nothing lost
	}
	return errors.Join(err, e)
}

// runningJobs returns how many jobs are running now: one per worker
// holding a grab. (On a gated pool, whose grabs Shutdown does not drop, a
// grab's unstarted jobs run after it.)
func (p *Pool) runningJobs() int {
	n := 0
	for i := range p.workers {
		if p.workers[i].state.Load()&runningMask != 0 {
			n++
		}
	}
	return n
}

// shutdownError is Shutdown's error when its context ended first.
type shutdownError struct {
	ctxErr  error
	dropped *DroppedError // nil if none was dropped
	running int
}

func (e *shutdownError) Error() string {
	d := 0
	if e.dropped != nil {
		d = e.dropped.Count
	}
	return fmt.Sprintf("workerpool: shutdown: %v: %d jobs dropped, %d still running", e.ctxErr, d, e.running)
}

// Unwrap returns ctx's error and the *DroppedError, if any.
func (e *shutdownError) Unwrap() []error {
	if e.dropped != nil {
		return []error{e.ctxErr, e.dropped}
	}
	return []error{e.ctxErr}
}

// awaitThreadExit waits until every worker thread has terminated. The
// runtime ends a locked thread just after its goroutine returns, so this
// takes microseconds; the bound only turns a runtime surprise into an error.
func (p *Pool) awaitThreadExit() error {
	tids := p.retiredThreads
	for i := range p.workers {
		tids = append(tids, int(p.workers[i].tid.Load()))
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, tid := range tids {
		for tid != 0 && !p.kit.threadExited(tid) {
			if time.Now().After(deadline) {
				return fmt.Errorf("workerpool: close: worker thread %d still running", tid)
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	return nil
}
