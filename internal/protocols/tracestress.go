package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// StressOptions configure Stress, the EventPipe stress protocol
// (dotnet/diagnostics src/tests/EventPipeStress). Zero fields take the
// defaults shown; Stress rejects other values outside the bounds shown
// with an error wrapping ErrInvalidOptions that names the field.
type StressOptions struct {
	Writers       int           // writer goroutines; 32; 1..MaxStressWriters
	PayloadSize   int           // bytes per event payload; 200; 0..MaxPayload
	Limit         int64         // session byte limit; 256 MiB; ≥ MinLimit
	Duration      time.Duration // how long the writers write, per run; 2 s; Duration × runs must fit a time.Duration
	Iterations    int           // runs per policy; 10; 1..MaxStressIterations
	Policies      []Policy      // compared side by side, each at most once; Lockless, Locked
	Memory        Memory        // where buffers live; OffHeap
	FlushInterval time.Duration // the reader's pause; 100 ms (EventPipe's)
	Lock          LockKind      // the manager lock; MutexLock
	Dir           string        // an existing directory for the per-run trace files; os.TempDir()
	// Progress, if set, is called after each run with runs done and total.
	Progress func(done, total int) `json:"-"`
}

// Stress defaults.
const (
	DefaultStressWriters  = 32
	DefaultStressPayload  = 200
	DefaultStressDuration = 2 * time.Second
	DefaultStressIters    = 10
)

// Stress bounds: far beyond the seed's protocol (32 writers, 10
// iterations), low enough that nothing derived from them overflows.
const (
	MaxStressWriters    = 1 << 12
	MaxStressIterations = 1 << 20
)

func (o StressOptions) withDefaults() (StressOptions, error) {
	if o.Writers == 0 {
		o.Writers = DefaultStressWriters
	}
	if o.PayloadSize == 0 {
		o.PayloadSize = DefaultStressPayload
	}
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.Duration == 0 {
		o.Duration = DefaultStressDuration
	}
	if o.Iterations == 0 {
		o.Iterations = DefaultStressIters
	}
	if o.Policies == nil {
		o.Policies = []Policy{Lockless, Locked}
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	return o, o.validate()
}

// validate checks options whose defaults are filled in.
func (o StressOptions) validate() error {
	switch {
	case o.Writers < 1 || o.Writers > MaxStressWriters:
		return errorf("StressOptions.Writers = %d: want 1..%d", o.Writers, MaxStressWriters)
	case o.PayloadSize < 0 || o.PayloadSize > MaxPayload:
		return errorf("StressOptions.PayloadSize = %d: want 0..%d bytes", o.PayloadSize, MaxPayload)
	case o.Duration < 0:
		return errorf("StressOptions.Duration = %v: want > 0", o.Duration)
	case o.Iterations < 1 || o.Iterations > MaxStressIterations:
		return errorf("StressOptions.Iterations = %d: want 1..%d", o.Iterations, MaxStressIterations)
	case len(o.Policies) == 0:
		return errorf("StressOptions.Policies is empty: want Lockless, Locked or both")
	}
	for i, p := range o.Policies {
		switch {
		case p != Lockless && p != Locked:
			return errorf("StressOptions.Policies[%d] = %d: want Lockless or Locked", i, int(p))
		case slices.Contains(o.Policies[:i], p):
			return errorf("StressOptions.Policies[%d] = %v: want each policy at most once", i, p)
		}
	}
	// runs ≤ MaxStressIterations × 2, so this product cannot overflow an int.
	if runs := o.Iterations * len(o.Policies); o.Duration > time.Duration(math.MaxInt64)/time.Duration(runs) {
		return errorf("StressOptions.Duration = %v for %d runs: want the total at most %v, so at most %v per run",
			o.Duration, runs, time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)/time.Duration(runs))
	}
	if _, err := (Options{Limit: o.Limit, Memory: o.Memory, FlushInterval: o.FlushInterval, Lock: o.Lock}).withDefaults(); err != nil {
		return err
	}
	switch fi, err := os.Stat(o.Dir); {
	case err != nil:
		return fmt.Errorf("%w: StressOptions.Dir = %q: want an existing directory: %w", ErrInvalidOptions, o.Dir, err)
	case !fi.IsDir():
		return errorf("StressOptions.Dir = %q: want a directory, not a file", o.Dir)
	}
	return nil
}

// StressRun is one run: one policy, one iteration.
type StressRun struct {
	Policy    Policy
	Iteration int
	// EventsRead and EventsDropped are counted by reading the trace file
	// back, as the seed's orchestrator does.
	EventsRead, EventsDropped uint64
	// Duration runs from releasing the writers until the session is closed,
	// i.e. every kept event is in the file: writing time plus drain.
	Duration  time.Duration
	FileBytes int64
	// Host Go runtime during the run (not the read-back): collections
	// completed and bytes allocated on the Go heap.
	HostGCs   uint32
	HeapAlloc uint64
	Session   Stats // the session's counters at Close
}

// Efficiency is 100·read/(read+dropped).
func (r StressRun) Efficiency() float64 {
	if t := r.EventsRead + r.EventsDropped; t > 0 {
		return 100 * float64(r.EventsRead) / float64(t)
	}
	return 0
}

// EventThroughput is events read per second of Duration.
func (r StressRun) EventThroughput() float64 { return float64(r.EventsRead) / r.Duration.Seconds() }

// StressResult holds every run, in the order they ran.
type StressResult struct {
	Options StressOptions // with defaults filled in
	Runs    []StressRun   // every completed run; an interrupted run is not kept
	Elapsed time.Duration
	// Partial is true when Stress was cancelled before every run completed.
	Partial bool
}

// PolicyRuns returns the runs of one policy, in iteration order.
func (r *StressResult) PolicyRuns(p Policy) []StressRun {
	var out []StressRun
	for _, run := range r.Runs {
		if run.Policy == p {
			out = append(out, run)
		}
	}
	return out
}

// Spread is the seed's summary of one metric over iterations.
type Spread struct{ Min, Max, Mean, StdDev float64 }

// SpreadOf summarizes xs; StdDev is the population standard deviation, as
// in the seed's TestResult.cs.
func SpreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range xs {
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
		s.Mean += x
	}
	s.Mean /= float64(len(xs))
	for _, x := range xs {
		s.StdDev += (x - s.Mean) * (x - s.Mean)
	}
	s.StdDev = math.Sqrt(s.StdDev / float64(len(xs)))
	return s
}

// Metric is one row of the seed's table.
type Metric struct {
	Name, Unit string
	Spread     Spread
}

// Metrics returns the seed's rows for one policy: Events Read, Events
// Dropped, Throughput Efficiency (%), Event Throughput (events/s), Data
// Throughput (payload bytes/s), then this port's host-GC rows.
func (r *StressResult) Metrics(p Policy) []Metric {
	runs := r.PolicyRuns(p)
	col := func(f func(StressRun) float64) Spread {
		xs := make([]float64, len(runs))
		for i, run := range runs {
			xs[i] = f(run)
		}
		return SpreadOf(xs)
	}
	size := float64(r.Options.PayloadSize)
	return []Metric{
		{"Events Read", "events", col(func(x StressRun) float64 { return float64(x.EventsRead) })},
		{"Events Dropped", "events", col(func(x StressRun) float64 { return float64(x.EventsDropped) })},
		{"Throughput Efficiency", "%", col(StressRun.Efficiency)},
		{"Event Throughput", "events/s", col(StressRun.EventThroughput)},
		{"Data Throughput", "bytes/s", col(func(x StressRun) float64 { return x.EventThroughput() * size })},
		{"Duration", "s", col(func(x StressRun) float64 { return x.Duration.Seconds() })},
		{"Reader flushes", "flushes", col(func(x StressRun) float64 { return float64(x.Session.Flushes) })},
		{"Reader drain rate", "bytes/s of flush wall time", col(func(x StressRun) float64 {
			return float64(x.Session.BytesFlushed) / x.Session.FlushTime.Seconds()
		})},
		{"Host Go GC cycles", "cycles", col(func(x StressRun) float64 { return float64(x.HostGCs) })},
		{"Host Go heap allocated", "bytes", col(func(x StressRun) float64 { return float64(x.HeapAlloc) })},
	}
}

// errAccounting means a run's trace file disagrees with the session's own
// counters: a bug, never an expected outcome.
var errAccounting = errors.New("trace: stress accounting mismatch")

// Stress runs the EventPipe stress protocol: for each iteration, each
// policy in turn (the order alternates between iterations so neither
// always runs first) starts a session streaming to a file, lets Writers
// goroutines write PayloadSize-byte events as fast as they can for
// Duration, closes the session, and reads the file back to count the
// events read and lost. It checks that read + lost equals the events the
// writers attempted.
//
// Cancelling ctx stops Stress promptly in every phase: the writers stop at
// once, the session drains its buffers without writing more of them to
// the file, and a read-back stops within a few thousand events. Stress
// then returns the runs completed before the cancel, with Partial set,
// and an error wrapping ctx.Err(). On any other error it returns the runs
// completed before it and that error. Invalid options return a nil result
// and an error wrapping ErrInvalidOptions.
//
// Each run's trace file is created with os.CreateTemp in Dir and unlinked
// at once where the system can remove an open file (Unix), so none is left
// behind on any path, even if the process is killed; elsewhere it is
// removed when its run ends. Stress never removes a path it did not
// create: only the path it created, and only while that path still names
// the file it created.
func Stress(ctx context.Context, opt StressOptions) (*StressResult, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &StressResult{Options: opt}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	total := opt.Iterations * len(opt.Policies)
	for it := 0; it < opt.Iterations; it++ {
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
				return res, fmt.Errorf("trace: stress: %v iteration %d: %w", p, it+1, err)
			}
			res.Runs = append(res.Runs, run)
			if opt.Progress != nil {
				opt.Progress(len(res.Runs), total)
			}
		}
	}
	return res, nil
}

func (r *StressResult) cancelled(ctx context.Context, total int) (*StressResult, error) {
	r.Partial = true
	return r, fmt.Errorf("trace: stress stopped after %d of %d runs: %w", len(r.Runs), total, ctx.Err())
}

// stressRun is one run: record into a fresh temporary file, then read it
// back.
func stressRun(ctx context.Context, opt StressOptions, p Policy, it int) (run StressRun, err error) {
	run = StressRun{Policy: p, Iteration: it}
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

// record runs a session streaming to w while the writers write for
// opt.Duration or until ctx is done, and fills in the run's timing and
// counters.
func (run *StressRun) record(ctx context.Context, opt StressOptions, w io.Writer) error {
	runtime.GC() // every run starts from the same host heap
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := NewSession(ctxWriter{ctx, w}, Options{Limit: opt.Limit, Policy: run.Policy, Memory: opt.Memory, FlushInterval: opt.FlushInterval, Lock: opt.Lock})
	if err != nil {
		return err
	}
	t0, err := writeFor(ctx, s, opt)
	closeErr := s.Close()
	run.Duration = time.Since(t0)
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

// writeFor starts opt.Writers goroutines writing to s as fast as they
// can, stops them after opt.Duration or as soon as ctx is done, and
// returns when they have all stopped, with the time they were released.
func writeFor(ctx context.Context, s *Session, opt StressOptions) (time.Time, error) {
	writers := make([]*Writer, opt.Writers)
	for i := range writers {
		var err error
		if writers[i], err = s.NewWriter(); err != nil {
			return time.Now(), err
		}
	}
	var (
		stop  atomic.Bool
		wg    sync.WaitGroup
		ready = make(chan struct{})
	)
	for _, w := range writers {
		wg.Go(func() {
			payload := make([]byte, opt.PayloadSize)
			for i := range payload {
				payload[i] = 'a' + byte(i%26)
			}
			<-ready
			for i := uint64(0); !stop.Load(); i++ {
				w.Write(KindStress, i, payload)
			}
		})
	}
	t0 := time.Now()
	close(ready)
	timer := time.NewTimer(opt.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	stop.Store(true) // each writer sees it after at most one more event
	wg.Wait()
	return t0, nil
}

// readBack counts the run's events in its file and checks them against
// the session's counters.
func (run *StressRun) readBack(ctx context.Context, f *os.File) error {
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
	if st := run.Session; run.EventsRead+run.EventsDropped != st.Written || run.EventsDropped != st.Dropped {
		return fmt.Errorf("%w: file has %d read + %d lost, writers attempted %d and dropped %d",
			errAccounting, run.EventsRead, run.EventsDropped, st.Written, st.Dropped)
	}
	return nil
}

// ctxCheckEvents is how many events countEvents reads between checks of
// its context: at most a few MiB of trace, a few milliseconds.
const ctxCheckEvents = 1 << 12

// countEvents reads a complete trace to its end and returns the events
// read and lost. A truncated trace is an error: Stress's sessions always
// end theirs. It returns ctx.Err() within ctxCheckEvents events of ctx
// being done.
func countEvents(ctx context.Context, r io.Reader) (read, lost uint64, err error) {
	rd, err := Open(r)
	if err != nil {
		return 0, 0, err
	}
	for i := 0; ; i++ {
		if i%ctxCheckEvents == 0 && ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		if _, err := rd.Next(); err != nil {
			if err != io.EOF {
				return 0, 0, err
			}
			if err := rd.Truncation(); err != nil {
				return 0, 0, err
			}
			read, lost = rd.Totals()
			return read, lost, nil
		}
	}
}

// ctxWriter fails every write once ctx is done, so that a cancelled run's
// session drains its buffers (which releases them) without writing the
// rest of them to disk first.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// tempFile is one run's trace file.
type tempFile struct {
	*os.File
	created os.FileInfo // the file createTemp made, to recognise it at its path
	linked  bool        // its path still exists: the system could not unlink it while open
}

// createTemp creates a run's trace file in dir with os.CreateTemp and
// unlinks it at once if the system allows removing an open file (Unix):
// the run keeps using it through its descriptor, and no path is left
// behind even if the process is killed. Elsewhere close removes it.
func createTemp(dir string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, "gcbench-trace-stress-*.gctrace")
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	created, err := f.Stat()
	if err != nil {
		// Without its identity the path cannot be checked later; it was
		// created exclusively a moment ago, so remove it now.
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("trace file: %w", err)
	}
	t := &tempFile{File: f, created: created, linked: true}
	t.linked = t.removeIfOurs() != nil
	return t, nil
}

// removeIfOurs removes the file's path only if it still names the file
// createTemp made, so that a path someone else has since put there is
// never removed.
func (t *tempFile) removeIfOurs() error {
	now, err := os.Lstat(t.Name())
	if err != nil {
		return err
	}
	if !os.SameFile(now, t.created) {
		return fmt.Errorf("%s no longer names the trace file this run created; left in place", t.Name())
	}
	return os.Remove(t.Name())
}

// close closes the file and removes its path if it still has one.
func (t *tempFile) close() error {
	err := t.File.Close()
	if t.linked {
		if rerr := t.removeIfOurs(); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("remove trace file: %w", rerr))
		}
	}
	if err != nil {
		return fmt.Errorf("trace file: %w", err)
	}
	return nil
}
