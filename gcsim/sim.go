package gcsim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// ErrBroken is wrapped by every Sim method after a collection or mutator
// phase failed (a full major heap during promotion, a verification failure,
// a job panic) or was interrupted by its context: the heap is no longer
// consistent and the Sim can only be closed.
var ErrBroken = errors.New("simulation stopped after an earlier failure")

// Sim is one simulation: a heap, its mutator, a gated worker pool and the
// prebuilt jobs of a minor collection. It is not safe for concurrent use.
type Sim struct {
	cfg  Config
	heap *heap.Heap
	pool *workerpool.Pool
	mut  mutator

	jobs    []jobs.Job    // 1 roots job, S block jobs, S LOS jobs; built once
	workers []workerState // index worker+1; 0 is the collecting goroutine (Inline)
	gcRead  []metrics.Sample

	// completions runs jobs[i] as its dispatch[i], which records when and
	// where the job ran (completions.go).
	completions completions

	// ru is the collector thread's usage as getrusage last read it
	// (preemptions), kept here so that the pause allocates nothing.
	ru rusage
	// threads reads the worker threads' context switches and times
	// (workerCounts), made at the first read.
	threads *threadReader

	obs         *TraceObserver // nil unless Config.Trace is set
	collections uint64         // minor collections started, numbering trace events

	majorPending bool // a major collection ran since the last Collect
	majorGCs     int
	checksum     uint64 // reachable-graph checksum before the pending collection (Verify)
	broken       error
	closed       bool
}

// workerState is one worker's promoter and dirty-card count, padded so that
// workers do not share a cache line.
type workerState struct {
	p     *heap.Promoter
	cards int64
	_     [48]byte
}

// New is NewContext that cannot be interrupted.
func New(cfg Config) (*Sim, error) { return NewContext(context.Background(), cfg) }

// NewContext builds the heap and its initial old generation, the pool and
// the jobs. An invalid cfg is reported as a *setting.Error. Building the old
// generation takes seconds per GiB; it looks at ctx after about every MiB
// built, and if ctx ends first NewContext frees what it built and returns an
// error wrapping ctx.Err().
func NewContext(ctx context.Context, cfg Config) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gcsim: building the simulation: %w", err)
	}
	h, err := heap.New(cfg.Heap())
	if err != nil {
		return nil, fmt.Errorf("gcsim: %w", err)
	}
	s := &Sim{cfg: cfg, heap: h, gcRead: []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/sched/pauses/total/gc:seconds"}}}
	s.mut = newMutator(h, cfg.Mutator, cfg.Seed)
	if err := s.populate(ctx); err != nil {
		h.Close()
		return nil, err
	}
	if err := s.startPool(); err != nil {
		h.Close()
		return nil, err
	}
	s.workers = make([]workerState, cfg.Workers+1)
	for i := range s.workers {
		s.workers[i].p = h.NewPromoter()
	}
	s.jobs = s.buildJobs()
	s.completions.init(s.jobs, cfg.Workers)
	return s, nil
}

// populate builds the initial old generation and gives the mutator its sample of it.
func (s *Sim) populate(ctx context.Context) error {
	m := s.cfg.Mutator
	pc := heap.PopulateConfig{MajorFill: m.MajorFill, LOSFill: m.LOSFill, MaxLargeObject: m.MaxLargeObject,
		Roots: s.mut.baseRoots, Sample: s.mut.sample, Seed: s.cfg.Seed}
	err := s.heap.PopulateContext(ctx, pc)
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return fmt.Errorf("gcsim: building the initial heap: %w", err)
	case err != nil:
		return fmt.Errorf("gcsim: building the initial heap (major_heap, los, mutator.major_fill, mutator.los_fill): %w", err)
	}
	s.mut.trimSample()
	return nil
}

// startPool starts the gated pool and, with Config.Trace, its observer.
func (s *Sim) startPool() error {
	cfg := s.cfg
	popt := cfg.PoolOptions()
	if cfg.Trace != nil {
		var err error
		if s.obs, err = NewTraceObserver(cfg.Trace, cfg.Workers); err != nil {
			return fmt.Errorf("gcsim: registering trace writers (Trace): %w", err)
		}
		popt.Observer = s.obs // only when set: a nil *TraceObserver in the interface would not be nil
		if cfg.Backend == workerpool.Native {
			s.obs.WakesUnrecorded() // its workers wake in C, which reports no Woken or FutileWake
		}
	}
	var err error
	if s.pool, err = workerpool.New(popt); err != nil {
		return fmt.Errorf("gcsim: starting the worker pool: %w", err)
	}
	return nil
}

// Close stops the pool and returns the heap's memory. It is idempotent.
func (s *Sim) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.threads != nil {
		s.threads.close()
	}
	return errors.Join(s.pool.Close(), s.heap.Close())
}

// Heap exposes the simulated heap (for verification and inspection; do not
// mutate it between Mutate and Collect).
func (s *Sim) Heap() *heap.Heap { return s.heap }

// Config returns the simulation's configuration.
func (s *Sim) Config() Config { return s.cfg }

// Jobs returns the minor collection's jobs, in enqueue order: the roots job,
// then the S major-heap jobs, then the S LOS jobs. (The pause dispatches
// them wrapped in jobs.Timed, which reports each run; see Completions.)
func (s *Sim) Jobs() []jobs.Job { return s.jobs }

// MajorGCs is the number of untimed major collections run so far.
func (s *Sim) MajorGCs() int { return s.majorGCs }

// PoolStats returns the pool's cumulative counters.
func (s *Sim) PoolStats() workerpool.Stats { return s.pool.Stats() }

func (s *Sim) usable() error {
	switch {
	case s.closed:
		return fmt.Errorf("gcsim: %w", heap.ErrClosed)
	case s.broken != nil:
		return fmt.Errorf("gcsim: %w: %w", ErrBroken, s.broken)
	}
	return nil
}

// fail records cause, a message without the package prefix, as the reason
// the Sim is broken and returns it with the prefix, so that neither this
// error nor the later ErrBroken ones repeat "gcsim:".
func (s *Sim) fail(cause error) error {
	s.broken = cause
	return fmt.Errorf("gcsim: %w", cause)
}

// Mutate is MutateContext that cannot be interrupted.
func (s *Sim) Mutate() error { return s.MutateContext(context.Background()) }

// MutateContext runs the untimed mutator phase: a major collection first if
// the major heap's empty blocks fell below the threshold, then the
// large-object allocations, then a full nursery of new objects and barrier
// stores. With Config.Verify it also records the reachable graph's checksum.
//
// Each step looks at ctx: the major collection and the verification after
// about every MiB of heap, the nursery fill every 1024 objects. If ctx ends
// first, MutateContext returns an error wrapping ctx.Err(), and the Sim,
// its heap part-way through the phase, can only be closed (ErrBroken).
func (s *Sim) MutateContext(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.heap.NurseryUsed() != 0 {
		return fmt.Errorf("gcsim: Mutate called twice without a Collect in between: %w", heap.ErrNurseryNotEmpty)
	}
	if err := s.majorIfNeeded(ctx); err != nil {
		return s.fail(err)
	}
	if err := s.allocLarge(ctx); err != nil {
		return s.fail(err)
	}
	if err := s.mut.fill(ctx); err != nil {
		return s.fail(err)
	}
	if s.cfg.Verify {
		res, err := s.heap.VerifyContext(ctx, heap.VerifyOptions{})
		if err != nil {
			return s.fail(fmt.Errorf("verifying after the mutator: %w", err))
		}
		s.checksum = res.Checksum
	}
	return nil
}

// majorIfNeeded runs a major collection if the major heap runs low, and
// fails if even that leaves too little room for the next collection.
func (s *Sim) majorIfNeeded(ctx context.Context) error {
	if !s.majorNeeded() {
		return nil
	}
	if err := s.majorCollect(ctx); err != nil {
		return err
	}
	if s.freeBlocks() < s.minFreeBlocks() {
		used, total := s.heap.MajorUsage()
		return fmt.Errorf("%w: %d of %d blocks hold live objects after a major collection, "+
			"fewer than a nursery's worth of promotion left (raise major_heap or lower mutator.major_fill)",
			heap.ErrMajorHeapFull, used, total)
	}
	return nil
}

// allocLarge makes the phase's large-object allocations, collecting once
// when the LOS is full.
func (s *Sim) allocLarge(ctx context.Context) error {
	for range s.cfg.Mutator.LargeObjects {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mutator interrupted: %w", err)
		}
		o := s.mut.drawLarge()
		err := s.mut.allocLarge(o)
		if errors.Is(err, heap.ErrLOSFull) {
			if err = s.majorCollect(ctx); err == nil {
				err = s.mut.allocLarge(o)
			}
		}
		switch {
		case errors.Is(err, heap.ErrLOSFull):
			return fmt.Errorf("mutator (raise LOS or lower Mutator.LOSFill): %w", err)
		case err != nil: // the major collection's own failure, or a cancel: no sizing hint
			return fmt.Errorf("mutator: %w", err)
		}
	}
	return nil
}

func (s *Sim) freeBlocks() int {
	used, total := s.heap.MajorUsage()
	return total - used
}

// minFreeBlocks is the fewest empty blocks a collection is started with
// (Config.reserveBlocks).
func (s *Sim) minFreeBlocks() int { return int(s.cfg.reserveBlocks()) }

// majorNeeded: fewer empty blocks than MajorGCFree of the heap or twice
// the minimum.
func (s *Sim) majorNeeded() bool {
	_, total := s.heap.MajorUsage()
	free := s.freeBlocks()
	return free < 2*s.minFreeBlocks() || float64(free) < s.cfg.Mutator.MajorGCFree*float64(total)
}

// majorCollect runs a major collection; heap's errors already say "major
// collection".
func (s *Sim) majorCollect(ctx context.Context) error {
	if _, err := s.heap.MajorCollectContext(ctx); err != nil {
		return err
	}
	s.majorGCs++
	s.majorPending = true
	return nil
}

// hostGC is the host Go runtime's collector as runtime/metrics shows it:
// the cycles it has completed and its stop-the-world pauses, of which
// every cycle makes two, sweep termination as it starts and mark
// termination as it ends (runtime.stwReason.isGC).
type hostGC struct{ cycles, stws uint64 }

// marking reports whether a cycle has started and not ended.
func (h hostGC) marking() bool { return h.stws > 2*h.cycles }

// overlapped is how many host GC cycles overlapped the time from h to
// end: those that completed in it, and one still marking at its end.
func (h hostGC) overlapped(end hostGC) uint64 {
	n := end.cycles - h.cycles
	if end.marking() {
		n++
	}
	return n
}

// hostGC reads the host runtime's collector (no allocation: the
// histogram's buckets are reused).
func (s *Sim) hostGC() hostGC {
	metrics.Read(s.gcRead)
	h := hostGC{cycles: s.gcRead[0].Value.Uint64()}
	for _, n := range s.gcRead[1].Value.Float64Histogram().Counts {
		h.stws += n
	}
	return h
}

// Collect is CollectContext that cannot be interrupted.
func (s *Sim) Collect(mode Mode) (Record, error) { return s.CollectContext(context.Background(), mode) }

// CollectContext runs one timed minor collection in the given mode and
// returns its record. The pause is four phases:
//
//  1. card prep: copy the cards to the shadow table and clear them;
//  2. dispatch: the collection's jobs — one roots job ("scan wbroots"), S
//     major-heap jobs over contiguous block ranges and S LOS jobs over
//     contiguous slices of the LOS object array, S = jobs.SplitCount(workers)
//     (8 workers: 1 + 32 + 32 = 65 jobs) — run inline (Serial), enqueued
//     one at a time (PerJob) or as one batch (Batch), then the gate opened
//     with Start; or queued with the gate opened under one lock (StartBatch);
//  3. join: wait for every job;
//  4. nursery reset: return the workers' promotion blocks and empty the
//     nursery.
//
// Each job scans marked cards; for every nursery reference it promotes the
// object exactly once (a CAS on the original's forwarding word), updates
// the slot and drains its own gray stack (heap.Promoter). Every job runs
// wrapped in a jobs.Timed that pushes a completion record (job, worker,
// start, end) onto a lock-free mpsc.List; after the pause the collector
// drains exactly one record per job, which gives the record's anatomy, job
// times and load imbalance (Completions returns them).
//
// Only the four phases are timed; the pool counters,
// host GC count and (with Config.Verify) verification are read outside the
// pause. If ctx ends during the pause, PerJob enqueues no further job, the
// jobs still queued are discarded (workerpool.Pool.Discard), so that Join
// waits only for the running ones, and CollectContext returns an error
// wrapping ctx.Err(): however many workers wake for each job, a stop ends
// the pause within a few jobs' time. The verification after the pause
// looks at ctx about every MiB of heap, and if ctx ends first
// CollectContext returns the record with an error wrapping ctx.Err(). After
// either the Sim can only be closed (ErrBroken).
func (s *Sim) CollectContext(ctx context.Context, mode Mode) (Record, error) {
	rec := Record{Mode: mode, Jobs: len(s.jobs)}
	if err := s.usable(); err != nil {
		return rec, err
	}
	if !modeNames.Valid(mode) {
		return rec, fmt.Errorf("%w: mode %d", ErrInvalidConfig, int(mode))
	}
	if err := s.timedCollect(ctx, mode, &rec); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return rec, s.fail(fmt.Errorf("%s collection interrupted: %w", mode, err))
		}
		return rec, s.fail(fmt.Errorf("%s collection (raise major_heap if the major heap is full): %w", mode, err))
	}
	if s.cfg.Verify {
		return rec, s.verifyCollection(ctx, mode)
	}
	return rec, nil
}

// timedCollect runs the pause and fills rec from it, the pool's counters,
// the completion records and the promoters.
func (s *Sim) timedCollect(ctx context.Context, mode Mode, rec *Record) error {
	var before workerpool.Stats
	if mode != Serial {
		before = s.pool.Stats()
	}
	var ph phases
	var pre preemptions
	var counts threadCounts
	if s.cfg.Backend == workerpool.Native && mode != Serial {
		// One thread for the pause: getrusage's RUSAGE_THREAD reads the
		// caller's thread, so both of pause's reads must be of the same
		// one (a nested lock if Experiment.LockCollector set one), and so
		// must the collector's CPU clock before and after it.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		pre.on = true
		counts = s.workerCounts()
	}
	gcBefore := s.hostGC()
	s.collections++
	if s.obs != nil {
		s.obs.CollectionStart(s.collections, mode)
	}
	unwatch := s.discardOnStop(ctx)
	err := s.pause(mode, &ph, &pre, ctx.Done())
	if cut := unwatch(); errors.Is(err, errPauseStopped) || cut && err == nil {
		err = fmt.Errorf("pause: %w", ctx.Err())
	}
	if s.obs != nil {
		s.obs.CollectionEnd(s.collections, mode)
	}
	rec.HostGCs = gcBefore.overlapped(s.hostGC())
	if counts.switchesOK || counts.timesOK || counts.clocksOK {
		rec.setWorkerCounts(counts, s.workerCounts())
	}
	if e := s.completions.drain(err); e != nil {
		err = e
	}
	s.completions.summarize(rec, &ph)
	rec.CardPrep, rec.Dispatch, rec.Join, rec.NurseryReset = ph[1].Sub(ph[0]), ph[2].Sub(ph[1]), ph[3].Sub(ph[2]), ph[4].Sub(ph[3])
	rec.Pause = ph[4].Sub(ph[0])
	rec.MajorGCBefore, s.majorPending = s.majorPending, false
	if mode != Serial {
		rec.Pool = s.pool.Stats().Sub(before)
	}
	if pre.on && pre.okBefore && pre.okAfter && pre.after >= pre.before {
		rec.CollectorPreemptions, rec.CollectorPreemptionsCounted = pre.after-pre.before, true
	}
	if s.obs != nil {
		s.obs.KernelCounters(rec)
	}
	for i := range s.workers {
		w := &s.workers[i]
		o, b := w.p.TakeCounts()
		rec.PromotedObjects += o
		rec.PromotedBytes += b
		rec.DirtyCards += int(w.cards)
		w.cards = 0
		if e := w.p.Err(); e != nil {
			err = errors.Join(err, e)
		}
	}
	return err
}

// verifyCollection checks the heap after a collection and that the
// reachable graph is the one the mutator left.
func (s *Sim) verifyCollection(ctx context.Context, mode Mode) error {
	res, err := s.heap.VerifyContext(ctx, heap.VerifyOptions{AfterMinor: true})
	if err != nil {
		return s.fail(fmt.Errorf("verifying after a %s collection: %w", mode, err))
	}
	if res.Checksum != s.checksum {
		return s.fail(fmt.Errorf("%w: %s collection changed the reachable graph (checksum %x, was %x)",
			heap.ErrVerify, mode, res.Checksum, s.checksum))
	}
	return nil
}

// Checksum verifies the heap and returns the reachable graph's checksum.
func (s *Sim) Checksum() (uint64, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	res, err := s.heap.Verify(heap.VerifyOptions{AfterMinor: s.heap.NurseryUsed() == 0})
	if err != nil {
		return 0, fmt.Errorf("gcsim: checksum: %w", err)
	}
	return res.Checksum, nil
}

// discardOnStop makes the end of ctx discard the pool's queued jobs, so
// that a pause's Join waits only for the jobs already running: with
// thousands of workers woken for every job the rest could take minutes.
// It registers outside the timed pause (context.AfterFunc allocates), and
// the pause itself only polls ctx.Done between enqueues. unwatch ends the
// watch, waiting for a discard already under way, and reports whether ctx
// ended before it: the pause was then cut short, or may have been.
func (s *Sim) discardOnStop(ctx context.Context) (unwatch func() (stopped bool)) {
	if ctx.Done() == nil || s.pool == nil {
		return func() bool { return false }
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		s.pool.Discard()
		close(done)
	})
	return func() bool {
		if stop() {
			return false
		}
		<-done
		return true
	}
}

// stopped reports, without blocking, whether done (a context's Done, nil
// for one that never ends) is closed.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// workerCounts reads the worker threads' context switches and times, and
// the CPU clocks; timedCollect calls it only for a pool mode on the
// Native backend, whose threads are the pool's own.
func (s *Sim) workerCounts() threadCounts {
	if s.threads == nil {
		tids := s.pool.ThreadIDs() // a Native pool's threads are its own until Close
		if len(tids) == 0 {
			return threadCounts{}
		}
		s.threads = newThreadReader(tids)
	}
	return s.threads.read()
}

// preemptions are the collector thread's involuntary context switches
// before and after Dispatch (Record.CollectorPreemptions), read when on.
type preemptions struct {
	on                bool
	before, after     uint64
	okBefore, okAfter bool
}

// phases are the pause's phase boundaries: start, cards prepared, jobs
// dispatched (and Start called), jobs joined, nursery reset.
type phases [5]time.Time

// pause is the timed part of a minor collection. It allocates nothing on
// the Go heap. A closed stop (the caller's context ended) ends PerJob's
// enqueues early and makes pause return errPauseStopped; discardOnStop
// empties the queue.
//
// With pre.on it reads the collector thread's involuntary context switches
// just before ph[1] and just after ph[2], so that the window is Dispatch
// and the two getrusage calls fall in card preparation and Join, not in
// Dispatch.
func (s *Sim) pause(mode Mode, ph *phases, pre *preemptions, stop <-chan struct{}) (err error) {
	ph[0] = time.Now()
	s.heap.PrepareCards()
	if pre.on {
		pre.before, pre.okBefore = involuntarySwitches(&s.ru)
	}
	ph[1] = time.Now()
	switch mode {
	case Serial:
		ph[2] = ph[1]
		err = s.runInline()
	case PerJob:
		for _, j := range s.completions.dispatch {
			if stopped(stop) {
				err = errPauseStopped
				break
			}
			if err = s.pool.Enqueue(j); err != nil {
				break
			}
		}
		s.pool.Start()
		ph[2] = time.Now()
		s.readPreemptionsAfter(pre)
		if e := s.pool.Join(context.Background()); e != nil && err == nil {
			err = e
		}
	case Batch:
		err = s.pool.EnqueueBatch(s.completions.dispatch)
		s.pool.Start()
		ph[2] = time.Now()
		s.readPreemptionsAfter(pre)
		if e := s.pool.Join(context.Background()); e != nil && err == nil {
			err = e
		}
	case StartBatch:
		err = s.pool.StartBatch(s.completions.dispatch)
		ph[2] = time.Now()
		s.readPreemptionsAfter(pre)
		if e := s.pool.Join(context.Background()); e != nil && err == nil {
			err = e
		}
	}
	ph[3] = time.Now()
	for i := range s.workers {
		s.workers[i].p.Release()
	}
	s.heap.ResetNursery()
	ph[4] = time.Now()
	return err
}

// readPreemptionsAfter is pause's second read of the collector thread's
// involuntary context switches, when pre.on.
func (s *Sim) readPreemptionsAfter(pre *preemptions) {
	if pre.on {
		pre.after, pre.okAfter = involuntarySwitches(&s.ru)
	}
}

// errPauseStopped is pause's error when its context ended during PerJob's
// enqueues; timedCollect replaces it with the context's error.
var errPauseStopped = errors.New("pause stopped")

// runInline is Serial's job loop, with job events when traced, as the
// pool's workers report them, so that every mode's trace shows its jobs.
// A job's panic stops the loop and comes back as the *workerpool.PanicError
// the pool modes' Join returns for one, so that it breaks the Sim in every
// mode alike.
func (s *Sim) runInline() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &workerpool.PanicError{Worker: jobs.Inline, Value: v, Stack: debug.Stack()}
		}
	}()
	for _, j := range s.completions.dispatch {
		if s.obs != nil {
			s.obs.JobStart(jobs.Inline)
		}
		j.Run(jobs.Inline)
		if s.obs != nil {
			s.obs.JobEnd(jobs.Inline)
		}
	}
	return nil
}
