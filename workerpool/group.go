package workerpool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// Group is a set of jobs that a caller submits to a pool and waits for as
// one: the everyday way to use the pool. Its jobs receive the group's
// context and return an error; Wait waits for this group's jobs only —
// including jobs that its jobs add through the group — and returns this
// group's errors and panics only. Another caller's jobs on the same pool,
// their errors and their panics never reach it.
//
// Cancelling the group's context (its parent's ending, or the first error
// under GroupCancelOnError) drops the group's jobs that have not started,
// including those already in a worker's grab: they never run, and Wait
// returns at once for them. Jobs already running see the context end and
// finish as they choose. Other groups' jobs are untouched.
//
// A Group is for ungated pools (a gated pool's gate belongs to the SGen
// round) and for the Goroutines and Threads backends: on a gated pool, a
// Native pool or a closed one, its Wait returns an error wrapping ErrGated,
// ErrUnsupported or ErrClosed and no job runs.
//
// Like an errgroup made by errgroup.WithContext, a Group is used once: its
// context is cancelled when Wait returns, so a job given to Go after that
// is dropped (the next Wait reports it). Until Wait returns (or the parent
// context ends) the group's context is registered with its parent, as one
// made by context.WithCancel is: call Wait. Go, TryGo, GoBatch and Wait are
// safe for concurrent use, and Go, TryGo and GoBatch may be called from the
// group's own jobs.
type Group struct {
	p             *Pool
	ctx           context.Context
	cancel        context.CancelCauseFunc
	stop          func() bool // stops the AfterFunc that drops unstarted jobs on cancel
	jctx          jobCtx      // what jobs receive: ctx, and the group for ErrCalledFromJob
	all           bool        // GroupAllErrors
	cancelOnError bool
	limit         chan struct{}   // GroupLimit: one element per job in flight; nil if unlimited
	setup         error           // why the group cannot run jobs, or nil
	done          <-chan struct{} // ctx.Done()

	// word is unstarted | running<<32 | cancelled<<63: jobs accepted and
	// not yet started, jobs running; once cancelled, no job starts. One
	// word, so that a start, a finish and a cancel are each one atomic
	// step and Wait's condition (no job unstarted or running) is exact.
	word    atomic.Uint64
	waiting atomic.Int32

	mu        sync.Mutex
	errs      []error // the first, or every one with GroupAllErrors
	dropped   int
	dropCause error
	idle      chan struct{} // closed when the group has nothing outstanding; nil if nobody waits
}

const (
	unstartedMask = 1<<32 - 1
	runningOne    = 1 << 32
	runningMask64 = (1<<31 - 1) << 32
	cancelledBit  = 1 << 63
)

// GroupOption configures a Group.
type GroupOption func(*Group)

// GroupAllErrors makes Wait return every error and panic of the group's
// jobs, combined with errors.Join, instead of the first one.
func GroupAllErrors() GroupOption { return func(g *Group) { g.all = true } }

// GroupCancelOnError cancels the group's context when a job first returns
// an error or panics, as errgroup.WithContext does: the group's unstarted
// jobs are dropped, and context.Cause of the context is that error.
func GroupCancelOnError() GroupOption { return func(g *Group) { g.cancelOnError = true } }

// GroupLimit limits the group's jobs in flight — accepted and not yet
// finished or dropped — to n, as errgroup's SetLimit does: Go and GoBatch
// wait for a job to finish when n are in flight (GoBatch queues what fits
// as one batch, then waits for room for the rest). A job that submits to
// its own group while the group is at its limit waits for another job to
// finish, so a limit smaller than the depth of such nesting deadlocks. n <
// 1 means no limit.
func GroupLimit(n int) GroupOption {
	return func(g *Group) {
		if n > 0 {
			g.limit = make(chan struct{}, n)
		}
	}
}

// NewGroup returns a new group of jobs on p, whose context is derived from
// ctx. See Group.
func (p *Pool) NewGroup(ctx context.Context, opts ...GroupOption) *Group {
	g := &Group{p: p}
	for _, o := range opts {
		o(g)
	}
	g.ctx, g.cancel = context.WithCancelCause(ctx)
	g.jctx = jobCtx{Context: g.ctx, g: g}
	g.done = g.ctx.Done()
	g.setup = p.groupSetup()
	if g.setup == nil {
		p.tracked.Store(true)
		g.stop = context.AfterFunc(g.ctx, g.cancelled)
	}
	return g
}

// groupSetup says why p cannot run a group's jobs, or nil.
func (p *Pool) groupSetup() error {
	switch {
	case !p.initialized():
		return ErrNotInitialized
	case p.nat != nil:
		return errNative("a group or Map")
	case p.opts.Gated:
		return ErrGated
	}
	return nil
}

// Context returns the group's context, the one its jobs receive (with the
// group attached, so that Group.WaitCtx, Pool.Join and Pool.Shutdown can
// tell a call from inside a job).
func (g *Group) Context() context.Context { return &g.jctx }

// Go queues fn as one job of the group. If the group has a limit and it is
// reached, or the pool's queue is full (Options.MaxQueued), Go waits for
// room; if the group's context ends first, the job is dropped. A job that
// cannot be queued — the pool is closed, or the group cannot run jobs —
// never runs, and Wait reports why. A nil fn panics.
func (g *Group) Go(fn func(ctx context.Context, worker int) error) {
	if fn == nil {
		panic("workerpool: Group.Go of a nil func")
	}
	if g.setup != nil {
		g.refuse(g.setup, 1)
		return
	}
	if g.limit != nil && g.acquire(1) == 0 {
		g.drop(1, nil)
		return
	}
	if !g.accept(1) {
		g.release(1)
		g.drop(1, nil)
		return
	}
	if err := g.p.EnqueueCtx(g.ctx, &groupTask{g: g, fn: fn}); err != nil {
		g.refused(1, 1, err)
	}
}

// TryGo queues fn as one job of the group only if it can do so at once,
// as errgroup's TryGo does: it returns false, queuing nothing, when the
// group's limit is reached (GroupLimit) or the pool has no room
// (Options.MaxQueued). A job that would wait for its own limited group can
// call TryGo and, on false, do the work itself. When the pool or the group
// refuses the job outright (closed, cancelled, a pool that cannot run
// groups), TryGo returns false too, and Wait reports it as after Go. A nil
// fn panics.
func (g *Group) TryGo(fn func(ctx context.Context, worker int) error) bool {
	if fn == nil {
		panic("workerpool: Group.TryGo of a nil func")
	}
	if g.setup != nil {
		g.refuse(g.setup, 1)
		return false
	}
	if g.limit != nil {
		select {
		case g.limit <- struct{}{}:
		default:
			return false
		}
	}
	if !g.accept(1) {
		g.release(1)
		g.drop(1, nil)
		return false
	}
	err := g.p.TryEnqueue(&groupTask{g: g, fn: fn})
	switch {
	case err == nil:
		return true
	case errors.Is(err, ErrQueueFull):
		if g.unaccept(1) {
			g.release(1) // else cancelled gave the place back, and counted the job dropped
		}
	default:
		g.refused(1, 1, err)
	}
	return false
}

// refused undoes the acceptance of k jobs that the pool did not queue
// (rest of them left to submit) and records why.
func (g *Group) refused(k, rest int, err error) {
	if g.unaccept(k) {
		g.release(k) // else cancelled gave their places back
	}
	if g.ctx.Err() != nil {
		g.drop(rest, nil)
	} else {
		g.refuse(err, rest)
	}
}

// GoBatch queues every fn as one job of the group, as one batch: one lock
// acquisition and one wake decision for all of them (EnqueueBatch), unless
// the group's limit or the pool's bound makes it wait for room, and then
// as few batches as the room allows. Otherwise it is Go for each fn. A nil
// fn panics, before any is queued.
func (g *Group) GoBatch(fns ...func(ctx context.Context, worker int) error) {
	if len(fns) == 0 {
		return
	}
	tasks := make([]groupTask, len(fns))
	js := make([]jobs.Job, len(fns))
	for i, fn := range fns {
		if fn == nil {
			panic("workerpool: Group.GoBatch of a nil func")
		}
		tasks[i] = groupTask{g: g, fn: fn}
		js[i] = &tasks[i]
	}
	g.submit(js)
}

// submit queues js, jobs of g, in as few batches as the limit and the
// pool's bound allow.
func (g *Group) submit(js []jobs.Job) {
	if g.setup != nil {
		g.refuse(g.setup, len(js))
		return
	}
	for len(js) > 0 {
		k := len(js)
		if r := g.p.room; r != nil {
			k = min(k, int(r.max))
		}
		if g.limit != nil {
			k = g.acquire(k)
			if k == 0 { // the context ended while waiting
				g.drop(len(js), nil)
				return
			}
		}
		if !g.accept(k) {
			g.release(k)
			g.drop(len(js), nil)
			return
		}
		if err := g.p.EnqueueBatchCtx(g.ctx, js[:k]); err != nil {
			g.refused(k, len(js), err)
			return
		}
		js = js[k:]
	}
}

// acquire takes up to n places under the limit, waiting for the first,
// and returns how many it took: 0 if the context ended first.
func (g *Group) acquire(n int) int {
	select {
	case g.limit <- struct{}{}:
	case <-g.ctx.Done():
		return 0
	}
	k := 1
	for k < n {
		select {
		case g.limit <- struct{}{}:
			k++
		default:
			return k
		}
	}
	return k
}

// release gives back k places under the limit.
func (g *Group) release(k int) {
	if g.limit == nil {
		return
	}
	for range k {
		<-g.limit
	}
}

// accept counts k jobs as accepted and unstarted, unless the group was
// cancelled.
func (g *Group) accept(k int) bool {
	for {
		w := g.word.Load()
		if w&cancelledBit != 0 {
			return false
		}
		if g.word.CompareAndSwap(w, w+uint64(k)) {
			return true
		}
	}
}

// unaccept takes back k jobs that accept counted but the pool refused,
// and reports whether they were still counted: false if the group was
// cancelled meanwhile, which counted them as dropped and gave back their
// places under the limit (refused counts them again, once).
func (g *Group) unaccept(k int) bool {
	for {
		w := g.word.Load()
		if w&cancelledBit != 0 {
			g.mu.Lock()
			g.dropped -= min(k, g.dropped)
			g.mu.Unlock()
			return false
		}
		if g.word.CompareAndSwap(w, w-uint64(k)) {
			g.notifyIfIdle(w - uint64(k))
			return true
		}
	}
}

// start moves one job from unstarted to running and reports whether it
// may run: not if the group was cancelled (then cancelled counted it as
// dropped).
func (g *Group) start() bool {
	select {
	case <-g.done: // the context ended; its AfterFunc may not have run yet
		g.cancelled()
		return false
	default:
	}
	for {
		w := g.word.Load()
		if w&cancelledBit != 0 {
			return false
		}
		if g.word.CompareAndSwap(w, w-1+runningOne) {
			return true
		}
	}
}

// finish ends a running job.
func (g *Group) finish() {
	g.release(1)
	g.notifyIfIdle(g.word.Add(^uint64(runningOne - 1)))
}

// dropOne is the fate of one accepted, unstarted job that Discard or
// Shutdown removed, for cause.
// The count changes under mu with the word, so that a Wait that sees the
// group idle also sees the count (result takes mu).
func (g *Group) dropOne(cause error) {
	g.mu.Lock()
	for {
		w := g.word.Load()
		if w&cancelledBit != 0 {
			g.mu.Unlock()
			return // cancelled counted it
		}
		if g.word.CompareAndSwap(w, w-1) {
			g.dropLocked(1, cause)
			g.mu.Unlock()
			g.release(1)
			g.notifyIfIdle(w - 1)
			return
		}
	}
}

// cancelled runs when the group's context ends: every unstarted job is
// dropped at once, and no later one starts.
// The count changes under mu with the word, as in dropOne.
func (g *Group) cancelled() {
	g.mu.Lock()
	for {
		w := g.word.Load()
		if w&cancelledBit != 0 {
			g.mu.Unlock()
			return
		}
		n := int(w & unstartedMask)
		nw := w&^unstartedMask | cancelledBit
		if g.word.CompareAndSwap(w, nw) {
			if n > 0 {
				g.dropLocked(n, context.Cause(g.ctx))
			}
			g.mu.Unlock()
			g.release(n)
			g.notifyIfIdle(nw)
			return
		}
	}
}

// drop counts n jobs dropped unrun.
func (g *Group) drop(n int, cause error) {
	g.mu.Lock()
	g.dropLocked(n, cause)
	g.mu.Unlock()
}

func (g *Group) dropLocked(n int, cause error) {
	g.dropped += n
	if g.dropCause == nil {
		g.dropCause = cause
		if cause == nil && g.ctx.Err() != nil {
			g.dropCause = context.Cause(g.ctx)
		}
	}
}

// fail records err, a job's or a submission's, and cancels the context
// under GroupCancelOnError.
func (g *Group) fail(err error) {
	g.mu.Lock()
	if g.all || len(g.errs) == 0 {
		g.errs = append(g.errs, err)
	}
	g.mu.Unlock()
	if g.cancelOnError {
		g.cancel(err)
		g.cancelled() // now, not when the AfterFunc's goroutine runs
	}
}

// refuse records that the pool refused n of the group's jobs for err (the
// pool is closed, or cannot run groups): jobs refused for one reason are
// one error that counts them, however many Go calls met it.
func (g *Group) refuse(err error, n int) {
	g.mu.Lock()
	for _, e := range g.errs {
		if r, ok := e.(*refusedError); ok && r.err == err {
			r.n += n
			g.mu.Unlock()
			return
		}
	}
	g.mu.Unlock()
	g.fail(&refusedError{n: n, err: err})
}

// refusedError counts the jobs of a group that the pool refused for one
// reason, which it wraps.
type refusedError struct {
	n   int
	err error
}

func (e *refusedError) Error() string {
	if e.n == 1 {
		return fmt.Sprintf("workerpool: 1 job not queued: %v", e.err)
	}
	return fmt.Sprintf("workerpool: %d jobs not queued: %v", e.n, e.err)
}

func (e *refusedError) Unwrap() error { return e.err }

// notifyIfIdle wakes the waiters if w, the word after a change, says that
// nothing is outstanding.
func (g *Group) notifyIfIdle(w uint64) {
	if !idleWord(w) || g.waiting.Load() == 0 {
		return
	}
	g.mu.Lock()
	if g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
	g.mu.Unlock()
}

// idleWord reports whether no job is running and none may start.
func idleWord(w uint64) bool {
	return w&runningMask64 == 0 && (w&unstartedMask == 0 || w&cancelledBit != 0)
}

// Wait waits until none of the group's jobs is queued or running — jobs
// its jobs added through the group included — and returns the group's
// errors: nil if every job returned nil; otherwise the first error or
// panic (a *PanicError wrapping ErrJobPanicked), or with GroupAllErrors
// all of them joined by errors.Join. Jobs dropped unrun (the context
// ended, Discard, Shutdown, or they could not be queued) add a
// *DroppedError wrapping ErrDropped, with their count and the context's
// cause; the first error reported is a job's, if any. Wait then cancels
// the group's context. Called from a job of the group's pool, its worker
// runs the pool's queued jobs while Wait waits (the package doc's "Jobs
// that wait"). A job must not call its own group's Wait: it would wait for
// itself (WaitCtx given the job's context returns ErrCalledFromJob
// instead).
func (g *Group) Wait() error { return g.WaitCtx(context.Background()) }

// WaitCtx is Wait that gives up when ctx ends, returning an error wrapping
// ctx.Err() (the group's jobs go on; a later Wait waits for them). Given the
// context of one of the group's own jobs, it returns ErrCalledFromJob at
// once instead of waiting for that job.
func (g *Group) WaitCtx(ctx context.Context) error {
	if jg, ok := ctx.Value(jobCtxKey{}).(*Group); ok && jg == g {
		return fmt.Errorf("workerpool: group.Wait: %w", ErrCalledFromJob)
	}
	if !idleWord(g.word.Load()) {
		g.waiting.Add(1)
		err := g.sleep(ctx)
		g.waiting.Add(-1)
		if err != nil {
			return err
		}
	}
	if g.stop != nil {
		g.stop()
	}
	g.cancel(errGroupDone)
	return g.result()
}

// errGroupDone is the cause of a group's context cancelled by Wait.
var errGroupDone = errors.New("workerpool: group.Wait returned")

// sleep waits until the group is idle or ctx ends. Called on a worker of
// the group's pool (a job waiting for a group), it runs the pool's queued
// jobs meanwhile, and looks for more every little while (help.go).
func (g *Group) sleep(ctx context.Context) error {
	w := g.p.currentWorker()
	var poll time.Duration
	var timer *time.Timer
	for {
		g.mu.Lock()
		if idleWord(g.word.Load()) {
			g.mu.Unlock()
			return nil
		}
		if g.idle == nil {
			g.idle = make(chan struct{})
		}
		ch := g.idle
		g.mu.Unlock()
		if w == nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return fmt.Errorf("workerpool: group.Wait: %w", ctx.Err())
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("workerpool: group.Wait: %w", err)
		}
		if g.p.helpOne(w) {
			poll = 0
			continue
		}
		poll = helpTimer(poll)
		if timer == nil {
			timer = time.NewTimer(poll)
			defer timer.Stop()
		} else {
			timer.Reset(poll)
		}
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
			return fmt.Errorf("workerpool: group.Wait: %w", ctx.Err())
		}
	}
}

// result is Wait's error.
func (g *Group) result() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var dropped error
	if g.dropped > 0 {
		dropped = &DroppedError{Count: g.dropped, Cause: g.dropCause}
	}
	errs := make([]error, len(g.errs), len(g.errs)+1)
	for i, e := range g.errs {
		if r, ok := e.(*refusedError); ok {
			e = &refusedError{n: r.n, err: r.err} // a copy: a late refusal must not change a returned error
		}
		errs[i] = e
	}
	switch {
	case len(errs) == 0:
		return dropped
	case !g.all:
		return errs[0]
	}
	return errors.Join(append(errs, dropped)...)
}

// caller is what a group's job calls.
type caller interface {
	call(ctx context.Context, worker int) error
}

// run runs one job of g on worker, unless the group was cancelled: its
// error and panic go to g alone. A job that calls runtime.Goexit never
// lets call return: run's deferred call then finishes it as if it had
// panicked with ErrJobGoexit, and the goroutine goes on exiting (the pool
// replaces its worker).
func (g *Group) run(c caller, worker int) {
	if !g.start() {
		if worker >= 0 {
			g.p.workers[worker].skipped++ // counted as dropped, not run: countGrabRun
		}
		return
	}
	returned := false
	defer func() {
		if !returned {
			g.goexited(worker)
		}
	}()
	err, panicked := g.call(c, worker)
	returned = true
	if err != nil {
		if worker >= 0 {
			w := &g.p.workers[worker].c
			if panicked {
				w.panicked.Add(1)
			} else {
				w.failed.Add(1)
			}
		}
		g.fail(err)
	}
	g.finish()
}

// goexited finishes a job that called runtime.Goexit.
func (g *Group) goexited(worker int) {
	g.fail(&PanicError{Worker: worker, Value: ErrJobGoexit, Stack: debug.Stack()})
	g.finish()
	if worker >= 0 {
		g.p.workers[worker].goexitReported = true // read by this goroutine's runJobs
	}
}

// call calls c, recovering a panic into a *PanicError. Whatever recover
// returns is a panic's value — nil too, for panic(nil) under
// GODEBUG=panicnil=1 — because a Goexit, for which recover also returns
// nil, does not stop unwinding: call then never returns, and run knows.
func (g *Group) call(c caller, worker int) (err error, panicked bool) {
	returned := false
	defer func() {
		if !returned {
			err, panicked = &PanicError{Worker: worker, Value: recover(), Stack: debug.Stack()}, true
		}
	}()
	err = c.call(&g.jctx, worker)
	returned = true
	return err, false
}

// groupTask is one job of a group.
type groupTask struct {
	g  *Group
	fn func(ctx context.Context, worker int) error
}

func (t *groupTask) Run(worker int)                             { t.g.run(t, worker) }
func (t *groupTask) call(ctx context.Context, worker int) error { return t.fn(ctx, worker) }
func (t *groupTask) drop(cause error)                           { t.g.dropOne(cause) }

// jobCtxKey is the context key under which a job's context holds its group.
type jobCtxKey struct{}

// jobCtx is a group's context as its jobs receive it: made once per group,
// so that a job gets it without an allocation.
type jobCtx struct {
	context.Context
	g *Group
}

// Value returns the group for jobCtxKey, else the group context's value.
func (c *jobCtx) Value(key any) any {
	if key == (jobCtxKey{}) {
		return c.g
	}
	return c.Context.Value(key)
}

// calledFromJob reports whether ctx is the context of a job of a group on
// p, whose wait for p's jobs would wait for that job.
func (p *Pool) calledFromJob(ctx context.Context) bool {
	if !p.tracked.Load() {
		return false
	}
	g, ok := ctx.Value(jobCtxKey{}).(*Group)
	return ok && g.p == p
}
