package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// StressOptions configure Stress, the EventPipe stress protocol
// (dotnet/diagnostics src/tests/EventPipeStress). Zero fields take the
// defaults shown.
type StressOptions struct {
	Writers       int           // writer goroutines; 32
	PayloadSize   int           // bytes per event payload; 200
	Limit         int64         // session byte limit; 256 MiB
	Duration      time.Duration // how long the writers write, per run; 2 s
	Iterations    int           // runs per policy; 10
	Policies      []Policy      // compared side by side; Lockless, Locked
	Memory        Memory        // where buffers live; OffHeap
	FlushInterval time.Duration // the reader's pause; 100 ms (EventPipe's)
	Lock          LockKind      // the manager lock; MutexLock
	Dir           string        // directory for the per-run trace files; os.TempDir()
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
	switch {
	case o.Writers < 1:
		return o, fmt.Errorf("%w: %d writers", ErrInvalidOptions, o.Writers)
	case o.PayloadSize < 0 || o.PayloadSize > MaxPayload:
		return o, fmt.Errorf("%w: payload size %d (0..%d)", ErrInvalidOptions, o.PayloadSize, MaxPayload)
	case o.Duration < 0:
		return o, fmt.Errorf("%w: duration %v", ErrInvalidOptions, o.Duration)
	case o.Iterations < 1:
		return o, fmt.Errorf("%w: %d iterations", ErrInvalidOptions, o.Iterations)
	case len(o.Policies) == 0:
		return o, fmt.Errorf("%w: no policies", ErrInvalidOptions)
	}
	_, err := Options{Limit: o.Limit, Memory: o.Memory, FlushInterval: o.FlushInterval, Lock: o.Lock}.withDefaults()
	for _, p := range o.Policies {
		if p != Lockless && p != Locked {
			err = fmt.Errorf("%w: policy %d", ErrInvalidOptions, int(p))
		}
	}
	return o, err
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
	Runs    []StressRun
	Elapsed time.Duration
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
func Stress(ctx context.Context, opt StressOptions) (*StressResult, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &StressResult{Options: opt}
	start := time.Now()
	total := opt.Iterations * len(opt.Policies)
	for it := 0; it < opt.Iterations; it++ {
		for k := range opt.Policies {
			p := opt.Policies[k]
			if it%2 == 1 {
				p = opt.Policies[len(opt.Policies)-1-k]
			}
			if err := ctx.Err(); err != nil {
				return res, err
			}
			run, err := stressRun(ctx, opt, p, it)
			if err != nil {
				return res, fmt.Errorf("%v iteration %d: %w", p, it+1, err)
			}
			res.Runs = append(res.Runs, run)
			if opt.Progress != nil {
				opt.Progress(len(res.Runs), total)
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func stressRun(ctx context.Context, opt StressOptions, p Policy, it int) (StressRun, error) {
	run := StressRun{Policy: p, Iteration: it}
	f, err := os.CreateTemp(opt.Dir, "gcbench-trace-stress-*.gctrace")
	if err != nil {
		return run, fmt.Errorf("trace file: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()

	runtime.GC() // every run starts from the same host heap
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := NewSession(f, Options{Limit: opt.Limit, Policy: p, Memory: opt.Memory, FlushInterval: opt.FlushInterval, Lock: opt.Lock})
	if err != nil {
		return run, err
	}
	writers := make([]*Writer, opt.Writers)
	for i := range writers {
		if writers[i], err = s.NewWriter(); err != nil {
			s.Close()
			return run, err
		}
	}
	var (
		stop  atomic.Bool
		wg    sync.WaitGroup
		ready = make(chan struct{})
	)
	for _, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := make([]byte, opt.PayloadSize)
			for i := range payload {
				payload[i] = 'a' + byte(i%26)
			}
			<-ready
			for i := uint64(0); !stop.Load(); i++ {
				w.Write(KindStress, i, payload)
			}
		}()
	}
	t0 := time.Now()
	close(ready)
	timer := time.NewTimer(opt.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	stop.Store(true)
	wg.Wait()
	closeErr := s.Close()
	run.Duration = time.Since(t0)
	runtime.ReadMemStats(&after)
	run.HostGCs = after.NumGC - before.NumGC
	run.HeapAlloc = after.TotalAlloc - before.TotalAlloc
	run.Session = s.Stats()
	if closeErr != nil {
		return run, closeErr
	}
	if err := ctx.Err(); err != nil {
		return run, err
	}
	if run.FileBytes, err = f.Seek(0, io.SeekCurrent); err != nil {
		return run, fmt.Errorf("trace file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return run, fmt.Errorf("trace file: %w", err)
	}
	run.EventsRead, run.EventsDropped, err = countEvents(f)
	if err != nil {
		return run, fmt.Errorf("read back %s: %w", f.Name(), err)
	}
	if st := run.Session; run.EventsRead+run.EventsDropped != st.Written || run.EventsDropped != st.Dropped {
		return run, fmt.Errorf("%w: file has %d read + %d lost, writers attempted %d and dropped %d",
			errAccounting, run.EventsRead, run.EventsDropped, st.Written, st.Dropped)
	}
	return run, nil
}

// countEvents reads a trace to the end and returns events read and lost.
func countEvents(r io.Reader) (read, lost uint64, err error) {
	rd, err := Open(r)
	if err != nil {
		return 0, 0, err
	}
	for {
		if _, err := rd.Next(); err != nil {
			if err == io.EOF {
				read, lost = rd.Totals()
				return read, lost, nil
			}
			return 0, 0, err
		}
	}
}
