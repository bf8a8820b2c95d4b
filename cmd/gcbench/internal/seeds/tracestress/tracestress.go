package tracestress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/trace"
)

// Options configure Compare, the EventPipe stress protocol
// (dotnet/diagnostics src/tests/EventPipeStress). Zero fields take the
// defaults shown; Compare rejects other values outside the bounds
// shown with an error wrapping ErrInvalidOptions that names the field.
//
// The fields whose zero value is meaningful — Lock, Reader,
// LocklessAllocInLock, WriteCost — take it as given: the trace package's
// defaults, with no writer cost. The gcbench trace-stress command
// defaults instead to EventPipe as dotnet/runtime#50797 measured it:
// SpinLock, EventPipeReader, the allocation inside the lock and a 2 µs
// writer cost (DefaultWriteCost).
type Options struct {
	Writers       int              // writers, each on its own OS thread; 32; 1..MaxWriters
	PayloadSize   int              // bytes per event payload; 200; 0..trace.MaxPayload
	Limit         int64            // session byte limit; trace.DefaultLimit (256 MiB); ≥ trace.MinLimit
	Duration      time.Duration    // how long each run counts (after the initial fill, see Count); 20 s; Duration × runs must fit a time.Duration
	Iterations    int              // runs per policy; 3; 1..MaxIterations
	Policies      []trace.Policy   // compared side by side, each at most once; Lockless, Locked
	Memory        trace.Memory     // where buffers live; OffHeap
	FlushInterval time.Duration    // the reader's pause; trace.DefaultFlushInterval (100 ms, EventPipe's)
	Lock          trace.LockKind   // the session's locks (the manager lock, and the writers' own with EventPipeReader)
	Reader        trace.ReaderKind // the session reader's protocol
	// LocklessAllocInLock allocates a Lockless buffer under the manager
	// lock, as #50797 did (see trace.Options.LocklessAllocInLock).
	LocklessAllocInLock bool
	// WriteCost is CPU time each writer spends before every Write attempt,
	// kept or dropped, standing in for what EventPipe does for every event
	// before its buffer write: the managed stack walk
	// (ep_walk_managed_stack_for_current_thread). 0..MaxWriteCost.
	WriteCost time.Duration
	Dir       string // an existing directory for the per-run trace files; os.TempDir()
	// Progress, if set, is called after each run with runs done and total.
	Progress func(done, total int) `json:"-"`
}

// Defaults for Options' zero fields: the seed's protocol, but
// 3 iterations of 20 s per policy instead of its 10 of 60 s, which keeps
// the counted time of a run (see Count) many times the time the
// initial fill takes.
const (
	DefaultWriters    = 32
	DefaultPayload    = 200
	DefaultDuration   = 20 * time.Second
	DefaultIterations = 3
	// DefaultWriteCost is the command's writer cost: a stack
	// walk of a few frames.
	DefaultWriteCost = 2 * time.Microsecond
	// MaxWriteCost bounds Options.WriteCost.
	MaxWriteCost = time.Second
)

func (o Options) withDefaults() (Options, error) {
	if o.Writers == 0 {
		o.Writers = DefaultWriters
	}
	if o.PayloadSize == 0 {
		o.PayloadSize = DefaultPayload
	}
	if o.Limit == 0 {
		o.Limit = trace.DefaultLimit
	}
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Iterations == 0 {
		o.Iterations = DefaultIterations
	}
	if o.Policies == nil {
		o.Policies = []trace.Policy{trace.Lockless, trace.Locked}
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = trace.DefaultFlushInterval
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	return o, o.validate()
}

// validate checks options whose defaults are filled in.
func (o Options) validate() error {
	switch {
	case o.Writers < 1 || o.Writers > MaxWriters:
		return seeds.Invalidf("TraceStressOptions.Writers = %d: want 1..%d", o.Writers, MaxWriters)
	case o.PayloadSize < 0 || o.PayloadSize > trace.MaxPayload:
		return seeds.Invalidf("TraceStressOptions.PayloadSize = %d: want 0..%d bytes", o.PayloadSize, trace.MaxPayload)
	case o.Duration < 0:
		return seeds.Invalidf("TraceStressOptions.Duration = %v: want > 0", o.Duration)
	case o.WriteCost < 0 || o.WriteCost > MaxWriteCost:
		return seeds.Invalidf("TraceStressOptions.WriteCost = %v: want 0..%v", o.WriteCost, MaxWriteCost)
	case o.Iterations < 1 || o.Iterations > MaxIterations:
		return seeds.Invalidf("TraceStressOptions.Iterations = %d: want 1..%d", o.Iterations, MaxIterations)
	}
	if err := o.validatePolicies(); err != nil {
		return err
	}
	// runs ≤ MaxIterations × 2, so this product cannot overflow an int.
	if runs := o.Iterations * len(o.Policies); o.Duration > time.Duration(math.MaxInt64)/time.Duration(runs) {
		return seeds.Invalidf("TraceStressOptions.Duration = %v for %d runs: want the total at most %v, so at most %v per run",
			o.Duration, runs, time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)/time.Duration(runs))
	}
	if err := o.session(trace.Lockless).Validate(); err != nil {
		return fmt.Errorf("%w: TraceStressOptions: %w", seeds.ErrInvalidOptions, err)
	}
	switch fi, err := os.Stat(o.Dir); {
	case err != nil:
		return fmt.Errorf("%w: TraceStressOptions.Dir = %q: want an existing directory: %w", seeds.ErrInvalidOptions, o.Dir, err)
	case !fi.IsDir():
		return seeds.Invalidf("TraceStressOptions.Dir = %q: want a directory, not a file", o.Dir)
	}
	return nil
}

func (o Options) validatePolicies() error {
	if len(o.Policies) == 0 {
		return seeds.Invalidf("TraceStressOptions.Policies is empty: want Lockless, Locked or both")
	}
	for i, p := range o.Policies {
		switch {
		case p != trace.Lockless && p != trace.Locked:
			return seeds.Invalidf("TraceStressOptions.Policies[%d] = %d: want Lockless or Locked", i, int(p))
		case slices.Contains(o.Policies[:i], p):
			return seeds.Invalidf("TraceStressOptions.Policies[%d] = %v: want each policy at most once", i, p)
		}
	}
	return nil
}

// session is the session configuration of a run with policy p.
func (o Options) session(p trace.Policy) trace.Options {
	return trace.Options{Limit: o.Limit, Policy: p, Memory: o.Memory, FlushInterval: o.FlushInterval, Lock: o.Lock,
		Reader: o.Reader, LocklessAllocInLock: o.LocklessAllocInLock}
}

// Run is one run: one policy, one iteration.
type Run struct {
	Policy    trace.Policy // the session's reservation policy
	Iteration int          // 0-based; every policy runs once per iteration
	// EventsRead and EventsDropped are the whole run's, counted by reading
	// the trace file back, as the seed's orchestrator does; their sum is
	// the events the writers attempted, exactly.
	EventsRead, EventsDropped uint64
	// Duration runs from releasing the writers until the session is closed,
	// i.e. every kept event is in the file: initial fill, counted time and
	// drain (the seed's stopwatch).
	Duration time.Duration
	// Counted is what the run counts while its writers write, which the
	// table reports.
	Counted   Count
	FileBytes int64 // the trace file's size: header, blocks and end block
	// Host Go runtime during the run (not the read-back): collections
	// completed and bytes allocated on the Go heap.
	HostGCs   uint32      // Go collections completed
	HeapAlloc uint64      // bytes allocated on the Go heap
	Session   trace.Stats // the session's counters at Close
	// FlushesAsked is how many flushes the reader's pause allows in the
	// counted time (Counted.Duration / FlushInterval): Counted.Flushes
	// falls short of it when the reader does not get the CPU it asks for.
	FlushesAsked float64
	// Threads is how many distinct OS threads the writers and the reader
	// ran on: Writers + 1 on Linux, where each has its own.
	Threads int
}

// Count is a run's count while its writers write: for
// Options.Duration from the first event dropped (the budget has
// run out: the initial fill, which only measures how fast writers write
// into an empty budget, is over) to the writers' stop, before the
// session's final drain, which only measures how fast the reader empties
// a full budget. Every policy's count thus lasts the same time. If no
// event is dropped within Duration of the writers' release, the count is
// that first Duration.
type Count struct {
	Start    time.Duration // from the writers' release to the count's start: the initial fill
	Duration time.Duration // counted time
	// EventsRead is the events the reader emitted in the counted time,
	// EventsDropped those the writers dropped.
	EventsRead, EventsDropped uint64
	Flushes                   uint64 // reader flushes begun
	// ReaderLocks is the reader's manager-lock acquisitions,
	// ReaderWriterLocks its acquisitions of writers' own locks.
	ReaderLocks, ReaderWriterLocks uint64
	LockContended                  uint64        // manager-lock acquisitions, by anyone, that found it held
	LockWait                       time.Duration // their wait, summed over threads
	ReaderCPU                      time.Duration // CPU time of the reader's OS thread
}

// ReaderCPUShare is the reader thread's CPU time over the counted time,
// in percent of one CPU.
func (c Count) ReaderCPUShare() float64 {
	if c.Duration <= 0 {
		return 0
	}
	return 100 * c.ReaderCPU.Seconds() / c.Duration.Seconds()
}

// ReaderLocksPerFlush is the reader's manager-lock acquisitions per flush
// (0 without a flush): 2 for the batch reader, hundreds for EventPipe's at
// a full 256 MiB budget.
func (c Count) ReaderLocksPerFlush() float64 {
	if c.Flushes == 0 {
		return 0
	}
	return float64(c.ReaderLocks) / float64(c.Flushes)
}

// Efficiency is 100·read/(read+dropped) in the counted time, 0 for a run
// without events.
func (run Run) Efficiency() float64 {
	if t := run.Counted.EventsRead + run.Counted.EventsDropped; t > 0 {
		return 100 * float64(run.Counted.EventsRead) / float64(t)
	}
	return 0
}

// EventThroughput is events read per second of counted time.
func (run Run) EventThroughput() float64 {
	return float64(run.Counted.EventsRead) / run.Counted.Duration.Seconds()
}

// Result holds every completed run, in the order they ran.
type Result struct {
	Options Options       // with defaults filled in
	Runs    []Run         // every completed run; an interrupted run is not kept
	Elapsed time.Duration // Compare's wall time, read-backs included
	// Partial is true when Compare stopped, cancelled or failed,
	// before every run completed.
	Partial bool
}

// PolicyRuns returns the runs of one policy, in iteration order.
func (r *Result) PolicyRuns(p trace.Policy) []Run {
	var out []Run
	for _, run := range r.Runs {
		if run.Policy == p {
			out = append(out, run)
		}
	}
	return out
}

// Metric is one row of the seed's table: one quantity over a
// policy's runs, summarized by package stats (the seed's columns are its Min,
// Max, Mean and Stdev).
type Metric struct {
	Name, Unit string        // the row's label, as the seed's table writes it, and its unit
	Summary    stats.Summary // of the per-run values, one per completed run of the policy
}

// metricDefs are the seed's rows (Events Read … Data Throughput), then
// this port's own rows; the payload size turns events into bytes.
var metricDefs = []struct {
	name, unit string
	of         func(run Run, payload float64) float64
}{
	{"Events Read", "events", func(x Run, _ float64) float64 { return float64(x.Counted.EventsRead) }},
	{"Events Dropped", "events", func(x Run, _ float64) float64 { return float64(x.Counted.EventsDropped) }},
	{"Throughput Efficiency", "%", func(x Run, _ float64) float64 { return x.Efficiency() }},
	{"Event Throughput", "events/s", func(x Run, _ float64) float64 { return x.EventThroughput() }},
	{"Data Throughput", "bytes/s", func(x Run, size float64) float64 { return x.EventThroughput() * size }},
	{"Duration", "s", func(x Run, _ float64) float64 { return x.Counted.Duration.Seconds() }},
	{"Initial fill", "s, not counted", func(x Run, _ float64) float64 { return x.Counted.Start.Seconds() }},
	{"Reader flushes made", "flushes", func(x Run, _ float64) float64 { return float64(x.Counted.Flushes) }},
	{"Reader flushes asked", "duration / flush interval", func(x Run, _ float64) float64 { return x.FlushesAsked }},
	{"Reader lock acquisitions per flush", "manager lock", func(x Run, _ float64) float64 { return x.Counted.ReaderLocksPerFlush() }},
	{"Reader CPU share", "% of one CPU", func(x Run, _ float64) float64 { return x.Counted.ReaderCPUShare() }},
	{"Manager lock waits", "acquisitions that found it held", func(x Run, _ float64) float64 {
		return float64(x.Counted.LockContended)
	}},
	{"Manager lock wait time", "s, summed over threads", func(x Run, _ float64) float64 { return x.Counted.LockWait.Seconds() }},
	{"Reader drain rate", "bytes/s of flush wall time", func(x Run, _ float64) float64 {
		return float64(x.Session.BytesFlushed) / x.Session.FlushTime.Seconds()
	}},
	{"Host Go GC cycles", "cycles", func(x Run, _ float64) float64 { return float64(x.HostGCs) }},
	{"Host Go heap allocated", "bytes", func(x Run, _ float64) float64 { return float64(x.HeapAlloc) }},
}

// Metrics returns the seed's rows for one policy, over the counted time
// (see Count) — Events Read, Events Dropped, Throughput
// Efficiency (%), Event Throughput (events/s), Data Throughput (payload
// bytes/s), Duration — then this port's: the initial fill left out, the
// reader's flushes, manager-lock acquisitions per flush, CPU share and
// drain rate, the lock's waits, host-GC cycles and Go-heap bytes, each
// summarized over the policy's runs; nil if none of them finished.
func (r *Result) Metrics(p trace.Policy) []Metric {
	runs := r.PolicyRuns(p)
	if len(runs) == 0 { // stopped before a run of p finished: nothing to summarize, not zeros
		return nil
	}
	size := float64(r.Options.PayloadSize)
	out := make([]Metric, len(metricDefs))
	xs := make([]float64, len(runs))
	for i, d := range metricDefs {
		for j, run := range runs {
			xs[j] = d.of(run, size)
		}
		out[i] = Metric{Name: d.name, Unit: d.unit, Summary: stats.Summarize(xs)}
	}
	return out
}

// Ratio compares Lockless with Locked event throughput.
type Ratio struct {
	// MeanRatio is Lockless's mean events/s over Locked's.
	MeanRatio float64 `json:"mean_ratio"`
	// MedianRatio is the median of the per-iteration ratios: each
	// iteration ran both policies back to back, so each ratio is free of
	// the drift between iterations.
	MedianRatio float64 `json:"median_paired_ratio"`
	// ReadMedianRatio is the median of the per-iteration ratios of events
	// read in the counted time (the seed's Events Read row).
	ReadMedianRatio float64 `json:"median_paired_events_read_ratio"`
	// PairedRatios and ReadPairedRatios are the per-iteration ratios
	// (event throughput, events read) behind MedianRatio and
	// ReadMedianRatio, in iteration order: each repetition's figure, whose
	// smallest and largest are the ratios' range.
	PairedRatios     []float64 `json:"paired_ratios"`
	ReadPairedRatios []float64 `json:"paired_events_read_ratios"`
}

// LocklessOverLocked returns the ratios of Lockless's event throughput and
// events read to Locked's, or nil unless both policies completed the same
// number (> 0) of iterations, so that every ratio pairs runs of one
// iteration, and every Locked run counted events.
func (r *Result) LocklessOverLocked() *Ratio {
	a, b := r.PolicyRuns(trace.Lockless), r.PolicyRuns(trace.Locked)
	if len(a) == 0 || len(a) != len(b) {
		return nil
	}
	for _, run := range b {
		if run.Counted.EventsRead == 0 || run.Counted.Duration <= 0 {
			return nil // no ratio to a run that counted nothing
		}
	}
	ta, tb, ra, rb := make([]float64, len(a)), make([]float64, len(b)), make([]float64, len(a)), make([]float64, len(b))
	for i := range a {
		ta[i], tb[i] = a[i].EventThroughput(), b[i].EventThroughput()
		ra[i], rb[i] = float64(a[i].Counted.EventsRead), float64(b[i].Counted.EventsRead)
	}
	pt, pr := stats.PairedRatios(ta, tb), stats.PairedRatios(ra, rb)
	return &Ratio{
		MeanRatio:        stats.Summarize(ta).Mean / stats.Summarize(tb).Mean,
		MedianRatio:      stats.Summarize(pt).Median,
		ReadMedianRatio:  stats.Summarize(pr).Median,
		PairedRatios:     pt,
		ReadPairedRatios: pr,
	}
}

// errAccounting means a run's trace file disagrees with the session's own
// counters: a bug, never an expected outcome.
var errAccounting = errors.New("trace-stress: accounting mismatch")

// Compare runs the EventPipe stress protocol: for each iteration,
// each policy in turn (the order alternates between iterations so neither
// always runs first) starts a session streaming to a file, lets Writers
// goroutines write PayloadSize-byte events as fast as they can (after
// WriteCost of work each) for Duration, closes the session, and reads the
// file back to count the events read and lost. It checks that read + lost
// equals the events the writers attempted, and reports each run's
// figures while its writers wrote (Run.Counted).
//
// Cancelling ctx stops Compare promptly in every phase: the writers
// stop at once, the session drains its buffers without writing more of
// them to the file, and a read-back stops within a few thousand events.
// Compare then returns the runs completed before the cancel, with
// Partial set, and an error wrapping ctx.Err(). On any other error it
// returns the runs completed before it, with Partial set, and that error.
// Invalid options return a nil result and an error wrapping
// ErrInvalidOptions.
//
// Each run's trace file is created with os.CreateTemp in Dir and unlinked
// at once where the system can remove an open file (Unix), so none is left
// behind on any path, even if the process is killed; elsewhere it is
// removed when its run ends. Compare never removes a path it did not
// create: only the path it created, and only while that path still names
// the file it created.
func Compare(ctx context.Context, opt Options) (*Result, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Result{Options: opt}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	total := opt.Iterations * len(opt.Policies)
	for it := range opt.Iterations {
		for k := range opt.Policies {
			p := opt.Policies[k]
			if it%2 == 1 {
				p = opt.Policies[len(opt.Policies)-1-k]
			}
			if ctx.Err() != nil {
				return res.cancelled(ctx, total)
			}
			run, err := stressRun(ctx, opt, p, it)
			if err != nil && ctx.Err() != nil {
				return res.cancelled(ctx, total) // whatever failed, the cancel caused it
			}
			if err != nil {
				res.Partial = true
				return res, fmt.Errorf("trace-stress: %v iteration %d: %w", p, it+1, err)
			}
			res.Runs = append(res.Runs, run)
			if opt.Progress != nil {
				opt.Progress(len(res.Runs), total)
			}
		}
	}
	return res, nil
}

func (r *Result) cancelled(ctx context.Context, total int) (*Result, error) {
	r.Partial = true
	return r, fmt.Errorf("trace-stress: stopped after %d of %d runs: %w", len(r.Runs), total, ctx.Err())
}

// stressRun is one run: record into a fresh temporary file, then read it
// back.
func stressRun(ctx context.Context, opt Options, p trace.Policy, it int) (run Run, err error) {
	run = Run{Policy: p, Iteration: it}
	f, err := createTemp(opt.Dir)
	if err != nil {
		return run, err
	}
	defer func() {
		if cerr := f.close(); err == nil {
			err = cerr
		}
	}()
	if err := run.record(ctx, opt, f.File); err != nil {
		return run, err
	}
	return run, run.readBack(ctx, f.File)
}

// record runs a session streaming to f while the writers write for
// opt.Duration or until ctx is done, and fills in the run's timing and
// counters.
func (run *Run) record(ctx context.Context, opt Options, f *os.File) error {
	runtime.GC() // every run starts from the same host heap
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tids := make([]int, opt.Writers+1) // the writers', then the reader's
	sopt := opt.session(run.Policy)
	sopt.RunReader = readerOnThread(&tids[opt.Writers])
	s, err := trace.NewSession(ctxWriter{ctx, f}, sopt)
	if err != nil {
		return err
	}
	firstFlush(ctx, s) // the reader's thread runs, and its id is set
	release, start, stop, err := writeFor(ctx, s, opt, tids[:opt.Writers], tids[opt.Writers])
	closeErr := s.Close()
	run.Duration = time.Since(release)
	run.Counted = counted(release, start, stop)
	run.FlushesAsked = float64(run.Counted.Duration) / float64(opt.FlushInterval)
	run.Threads = seeds.CountThreads(tids)
	runtime.ReadMemStats(&after)
	run.HostGCs = after.NumGC - before.NumGC
	run.HeapAlloc = after.TotalAlloc - before.TotalAlloc
	run.Session = s.Stats()
	switch {
	case ctx.Err() != nil:
		return ctx.Err() // the run is incomplete, and closeErr, if any, is its consequence
	case err != nil:
		return err
	}
	return closeErr
}

// firstFlush waits for the reader's first flush, which it makes as soon as
// its thread runs and which finds nothing: after it, the reader's thread id
// is known, and the session's counters start from a reader at work.
func firstFlush(ctx context.Context, s *trace.Session) {
	for ctx.Err() == nil && s.Stats().Flushes == 0 {
		time.Sleep(50 * time.Microsecond)
	}
}

// readerOnThread is the session's RunReader for a run: the reader runs on
// an OS thread of its own, as EventPipe's streaming thread does, whose id
// it stores in tid before its first flush.
func readerOnThread(tid *int) func(loop func()) {
	return func(loop func()) {
		runtime.LockOSThread() // never unlocked: the thread ends with the reader
		*tid = seeds.ThreadID()
		loop()
	}
}

// stressMark is a run's counters at one moment.
type stressMark struct {
	at        time.Time
	st        trace.Stats
	readerCPU time.Duration
}

func markNow(s *trace.Session, readerTID int) stressMark {
	return stressMark{at: time.Now(), st: s.Stats(), readerCPU: threadCPUOf(readerTID)}
}

// counted is the run's count from start to stop; release is when the
// writers were released.
func counted(release time.Time, start, stop stressMark) Count {
	return Count{
		Start:             start.at.Sub(release),
		Duration:          stop.at.Sub(start.at),
		EventsRead:        stop.st.EventsFlushed - start.st.EventsFlushed,
		EventsDropped:     stop.st.Dropped - start.st.Dropped,
		Flushes:           stop.st.Flushes - start.st.Flushes,
		ReaderLocks:       stop.st.ReaderLocks - start.st.ReaderLocks,
		ReaderWriterLocks: stop.st.ReaderWriterLocks - start.st.ReaderWriterLocks,
		LockContended:     stop.st.LockContended - start.st.LockContended,
		LockWait:          stop.st.LockWait - start.st.LockWait,
		ReaderCPU:         stop.readerCPU - start.readerCPU,
	}
}

// writeFor starts opt.Writers writers, each on a goroutine locked to an OS
// thread of its own (never unlocked, so the thread ends with it), writing
// to s as fast as they can after opt.WriteCost of work per event; it
// stores each writer thread's id in tids, stops them opt.Duration after
// the first drop (see Count) or as soon as ctx is done, and
// returns when they have all stopped, with the time they were released and
// the counters where the count starts and stops.
//
// Writers are threads, as the seed's are, so that the kernel schedules
// them and the reader alike: under the Go scheduler alone, writers that
// never block would keep the reader goroutine off the processors for
// whole time slices and the reader's flushes, not the reservation policy,
// would set the pace.
func writeFor(ctx context.Context, s *trace.Session, opt Options, tids []int, readerTID int) (release time.Time, start, stop stressMark, err error) {
	writers := make([]*trace.Writer, opt.Writers)
	for i := range writers {
		if writers[i], err = s.NewWriter(); err != nil {
			return time.Now(), start, start, err
		}
	}
	var (
		halt, full atomic.Bool
		firstDrop  stressMark // set by the writer that drops first, before it closes dropped
		dropped    = make(chan struct{})
		wg         sync.WaitGroup
		ready      = make(chan struct{})
	)
	for i, w := range writers {
		wg.Go(func() {
			runtime.LockOSThread()
			tids[i] = seeds.ThreadID()
			payload := make([]byte, opt.PayloadSize)
			for i := range payload {
				payload[i] = 'a' + byte(i%26)
			}
			<-ready
			for i := uint64(0); !halt.Load(); i++ {
				busyFor(opt.WriteCost)
				if !w.Write(trace.KindStress, i, payload) && !full.Load() && full.CompareAndSwap(false, true) {
					firstDrop = markNow(s, readerTID)
					close(dropped)
				}
			}
		})
	}
	start = markNow(s, readerTID)
	release = start.at
	close(ready)
	// The count starts at the first drop and lasts opt.Duration; if
	// nothing is dropped within opt.Duration, it is the first opt.Duration.
	timer := time.NewTimer(opt.Duration)
	select {
	case <-dropped:
		start = firstDrop
		timer.Reset(time.Until(start.at.Add(opt.Duration)))
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
	case <-timer.C:
	case <-ctx.Done():
	}
	timer.Stop()
	if ctx.Err() != nil {
		// Writers queued on the spin lock would otherwise get through it
		// one at a time, seconds on a busy machine, before they saw halt.
		s.Stop()
	}
	halt.Store(true) // each writer sees it after at most one more event
	// The count stops here, not when the last writer has seen halt: a
	// writer that waits for a spin lock may take a while to, and the
	// reader drains meanwhile.
	stop = markNow(s, readerTID)
	wg.Wait()
	return release, start, stop, nil
}

// busyFor keeps the thread busy for d, reading the clock (a vDSO call of
// tens of nanoseconds) until d has passed.
func busyFor(d time.Duration) {
	if d <= 0 {
		return
	}
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// readBack counts the run's events in its file and checks them against
// the session's counters.
func (run *Run) readBack(ctx context.Context, f *os.File) error {
	var err error
	if run.FileBytes, err = f.Seek(0, io.SeekCurrent); err != nil {
		return fmt.Errorf("trace file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("trace file: %w", err)
	}
	if run.EventsRead, run.EventsDropped, err = countEvents(ctx, f); err != nil {
		return fmt.Errorf("read back the run's trace: %w", err)
	}
	if st := run.Session; run.EventsRead+run.EventsDropped != st.Written || run.EventsDropped != st.Dropped || run.EventsRead != st.EventsFlushed {
		return fmt.Errorf("%w: file has %d read + %d lost, writers attempted %d and dropped %d, reader emitted %d",
			errAccounting, run.EventsRead, run.EventsDropped, st.Written, st.Dropped, st.EventsFlushed)
	}
	if c := run.Counted; c.EventsRead > run.EventsRead || c.EventsDropped > run.EventsDropped {
		return fmt.Errorf("%w: counted %d read and %d dropped while writing, more than the file's %d and %d",
			errAccounting, c.EventsRead, c.EventsDropped, run.EventsRead, run.EventsDropped)
	}
	return nil
}
