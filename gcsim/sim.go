package gcsim

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// ErrBroken is wrapped by every Sim method after a collection failed (a
// full major heap during promotion, a verification failure, a job panic):
// the heap is no longer consistent and the Sim can only be closed.
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

	// Completion records (completions.go): dispatch[i] = &timed[i], which
	// runs jobs[i] and pushes its record onto done.
	timed       []jobs.Timed
	dispatch    []jobs.Job
	done        jobs.MPSCList[jobs.Completion]
	completions []jobs.Completion // the last collection's records
	busy        []time.Duration   // per worker+1: busy time in the last collection
	ran         []int             // per worker+1: jobs run in the last collection
	visit       func(*jobs.Node[jobs.Completion])

	obs         *trace.Observer // nil unless Config.Trace is set
	collections uint64          // minor collections started, numbering trace events

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

// New builds the heap and its initial old generation, the pool and the jobs.
func New(cfg Config) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	h, err := heap.New(cfg.heapConfig())
	if err != nil {
		return nil, fmt.Errorf("gcsim: %w", err)
	}
	s := &Sim{cfg: cfg, heap: h, gcRead: []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}}
	s.mut = newMutator(h, cfg.Mutator, cfg.Seed)
	pc := heap.PopulateConfig{MajorFill: cfg.Mutator.MajorFill, LOSFill: cfg.Mutator.LOSFill,
		MaxLargeObject: cfg.Mutator.MaxLargeObject, Roots: s.mut.baseRoots, Sample: s.mut.sample, Seed: cfg.Seed}
	if err := h.Populate(pc); err != nil {
		h.Close()
		return nil, fmt.Errorf("gcsim: building the initial heap (MajorHeap, LOS, Mutator.MajorFill, Mutator.LOSFill): %w", err)
	}
	s.mut.trimSample()
	popt := workerpool.Options{Workers: cfg.Workers, Backend: cfg.Backend, Wake: cfg.Wake, Gated: true}
	if cfg.Trace != nil {
		if s.obs, err = trace.NewObserver(cfg.Trace, cfg.Workers); err != nil {
			h.Close()
			return nil, fmt.Errorf("gcsim: registering trace writers (Trace): %w", err)
		}
		popt.Observer = s.obs // only when set: a nil *Observer in the interface would not be nil
	}
	s.pool, err = workerpool.New(popt)
	if err != nil {
		h.Close()
		return nil, fmt.Errorf("gcsim: starting the worker pool: %w", err)
	}
	s.workers = make([]workerState, cfg.Workers+1)
	for i := range s.workers {
		s.workers[i].p = h.NewPromoter()
	}
	s.jobs = s.buildJobs()
	s.setupCompletions()
	return s, nil
}

// Close stops the pool and returns the heap's memory. It is idempotent.
func (s *Sim) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
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

func (s *Sim) fail(err error) error {
	s.broken = err
	return err
}

// Mutate runs the untimed mutator phase: a major collection first if the
// major heap's empty blocks fell below the threshold, then the large-object
// allocations, then a full nursery of new objects and barrier stores. With
// Config.Verify it also records the reachable graph's checksum.
func (s *Sim) Mutate() error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.heap.NurseryUsed() != 0 {
		return fmt.Errorf("gcsim: Mutate called twice without a Collect in between: %w", heap.ErrNurseryNotEmpty)
	}
	if s.majorNeeded() {
		if err := s.majorCollect(); err != nil {
			return s.fail(err)
		}
		if s.freeBlocks() < s.minFreeBlocks() {
			used, total := s.heap.MajorUsage()
			return s.fail(fmt.Errorf("gcsim: %w: %d of %d blocks hold live objects after a major collection, "+
				"fewer than a nursery's worth of promotion left (raise MajorHeap or lower Mutator.MajorFill)",
				heap.ErrMajorHeapFull, used, total))
		}
	}
	for range s.cfg.Mutator.LargeObjects {
		err := s.mut.allocLarge()
		if errors.Is(err, heap.ErrLOSFull) {
			if err = s.majorCollect(); err == nil {
				err = s.mut.allocLarge()
			}
		}
		if err != nil {
			return s.fail(fmt.Errorf("gcsim: mutator (raise LOS or lower Mutator.LOSFill): %w", err))
		}
	}
	if err := s.mut.fill(); err != nil {
		return s.fail(err)
	}
	if s.cfg.Verify {
		res, err := s.heap.Verify(heap.VerifyOptions{})
		if err != nil {
			return s.fail(fmt.Errorf("gcsim: verifying after the mutator: %w", err))
		}
		s.checksum = res.Checksum
	}
	return nil
}

func (s *Sim) freeBlocks() int {
	used, total := s.heap.MajorUsage()
	return total - used
}

// minFreeBlocks is the fewest empty blocks a collection is started with: a
// whole nursery's worth of survivors plus a block per promoter. (The true
// worst case adds a partly used block per size class per promoter, which
// would reserve most of a small heap; if it ever happens, promotion fails
// with heap.ErrMajorHeapFull.)
func (s *Sim) minFreeBlocks() int {
	return int(s.cfg.Nursery/heap.BlockSize) + len(s.workers)
}

// majorNeeded: fewer empty blocks than MajorGCFree of the heap or twice
// the minimum.
func (s *Sim) majorNeeded() bool {
	_, total := s.heap.MajorUsage()
	free := s.freeBlocks()
	return free < 2*s.minFreeBlocks() || float64(free) < s.cfg.Mutator.MajorGCFree*float64(total)
}

func (s *Sim) majorCollect() error {
	if _, err := s.heap.MajorCollect(); err != nil {
		return fmt.Errorf("gcsim: major collection: %w", err)
	}
	s.majorGCs++
	s.majorPending = true
	return nil
}

// hostGCs reads the host Go runtime's completed GC cycles (no allocation).
func (s *Sim) hostGCs() uint64 {
	metrics.Read(s.gcRead)
	return s.gcRead[0].Value.Uint64()
}

// Collect runs one timed minor collection in the given mode and returns its
// record. Only the four phases are timed; the pool counters, host GC count
// and (with Config.Verify) verification are read outside the pause.
func (s *Sim) Collect(mode Mode) (Record, error) {
	rec := Record{Mode: mode, Jobs: len(s.jobs)}
	if err := s.usable(); err != nil {
		return rec, err
	}
	if mode < Serial || mode > Batch {
		return rec, fmt.Errorf("%w: mode %d", ErrInvalidConfig, int(mode))
	}
	var before workerpool.Stats
	if mode != Serial {
		before = s.pool.Stats()
	}
	gcs := s.hostGCs()

	var ph phases
	s.collections++
	if s.obs != nil {
		s.obs.CollectionStart(s.collections)
	}
	err := s.pause(mode, &ph)
	if s.obs != nil {
		s.obs.CollectionEnd(s.collections)
	}
	rec.HostGCs = s.hostGCs() - gcs
	if e := s.drainCompletions(err); e != nil {
		err = e
	}
	s.summarizeCompletions(&rec)
	rec.CardPrep, rec.Dispatch, rec.Join, rec.NurseryReset = ph[1].Sub(ph[0]), ph[2].Sub(ph[1]), ph[3].Sub(ph[2]), ph[4].Sub(ph[3])
	rec.Pause = ph[4].Sub(ph[0])
	rec.MajorGCBefore, s.majorPending = s.majorPending, false
	if mode != Serial {
		rec.Pool = s.pool.Stats().Sub(before)
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
	if err != nil {
		return rec, s.fail(fmt.Errorf("gcsim: %s collection (raise MajorHeap if the major heap is full): %w", mode, err))
	}
	if s.cfg.Verify {
		res, err := s.heap.Verify(heap.VerifyOptions{AfterMinor: true})
		if err != nil {
			return rec, s.fail(fmt.Errorf("gcsim: verifying after a %s collection: %w", mode, err))
		}
		if res.Checksum != s.checksum {
			return rec, s.fail(fmt.Errorf("gcsim: %w: %s collection changed the reachable graph (checksum %x, was %x)",
				heap.ErrVerify, mode, res.Checksum, s.checksum))
		}
	}
	return rec, nil
}

// Checksum verifies the heap and returns the reachable graph's checksum.
func (s *Sim) Checksum() (uint64, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	res, err := s.heap.Verify(heap.VerifyOptions{AfterMinor: s.heap.NurseryUsed() == 0})
	return res.Checksum, err
}

// phases are the pause's phase boundaries: start, cards prepared, jobs
// dispatched (and Start called), jobs joined, nursery reset.
type phases [5]time.Time

// pause is the timed part of a minor collection. It allocates nothing on
// the Go heap.
func (s *Sim) pause(mode Mode, ph *phases) (err error) {
	ph[0] = time.Now()
	s.heap.PrepareCards()
	ph[1] = time.Now()
	switch mode {
	case Serial:
		ph[2] = ph[1]
		if s.obs != nil {
			s.runInlineTraced()
			break
		}
		for _, j := range s.dispatch {
			j.Run(jobs.Inline)
		}
	case PerJob:
		for _, j := range s.dispatch {
			if err = s.pool.Enqueue(j); err != nil {
				break
			}
		}
		s.pool.Start()
		ph[2] = time.Now()
		if e := s.pool.Join(context.Background()); e != nil && err == nil {
			err = e
		}
	case Batch:
		err = s.pool.EnqueueBatch(s.dispatch)
		s.pool.Start()
		ph[2] = time.Now()
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

// runInlineTraced is Serial's job loop with job events, as the pool's
// workers report them, so that every mode's trace shows its jobs.
func (s *Sim) runInlineTraced() {
	for _, j := range s.dispatch {
		s.obs.JobStart(jobs.Inline)
		j.Run(jobs.Inline)
		s.obs.JobEnd(jobs.Inline)
	}
}
