package poolbench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// Protocol is one of the DedicatedThreadPool benchmark protocols.
type Protocol int

const (
	// Throughput queues every item at once, then waits for all of them
	// (the seed: 10,000,000 items; 3.88 s before its fix, 1.08 s after).
	Throughput Protocol = iota
	// Latency submits one item and waits for it, again and again: every
	// round trip finds the workers idle and pays a wake-up (the seed:
	// 300,000 round trips; 7.23 s before, 0.224 s after).
	Latency
)

var poolProtocols = enum.New[Protocol]("Protocol", "protocol", seeds.ErrInvalidOptions, "throughput", "latency")

// String returns the protocol's lower-case name, as ParseProtocol
// accepts it, or "Protocol(n)" for a value without one.
func (p Protocol) String() string { return poolProtocols.String(p) }

// MarshalText returns the protocol's name; a value without one is an error.
func (p Protocol) MarshalText() ([]byte, error) { return poolProtocols.Marshal(p) }

// UnmarshalText sets p from a name ParseProtocol accepts.
func (p *Protocol) UnmarshalText(b []byte) error { return poolProtocols.Unmarshal(b, p) }

// ParseProtocol returns the protocol named s (ignoring case), or an
// error wrapping ErrInvalidOptions that names both.
func ParseProtocol(s string) (Protocol, error) { return poolProtocols.Parse(s) }

// ProtocolNames lists the names ParseProtocol accepts, in value order.
func ProtocolNames() []string { return poolProtocols.List() }

// Contender is one way of running items: the baseline (a goroutine per
// item and a sync.WaitGroup), or gcbench's pool with a backend, a wake
// policy, and per-item Enqueue or EnqueueBatch.
type Contender struct {
	Baseline bool                  // a goroutine per item; the other fields are ignored
	Backend  workerpool.Backend    // the pool's backend
	Wake     workerpool.WakePolicy // the pool's wake policy
	Batch    bool                  // submit with EnqueueBatch instead of one Enqueue per item
}

// BaselineName is the name of the goroutine-per-item contender.
const BaselineName = "goroutine-per-item"

// String names the contender: "goroutine-per-item", or
// "backend/wake/enqueue" or "backend/wake/batch".
func (c Contender) String() string {
	if c.Baseline {
		return BaselineName
	}
	return c.Backend.String() + "/" + c.Wake.String() + "/" + c.api()
}

func (c Contender) api() string {
	switch {
	case c.Baseline:
		return "go"
	case c.Batch:
		return "batch"
	}
	return "enqueue"
}

// Run is one run of one protocol by one contender.
type Run struct {
	Contender Contender // who runs the items
	Protocol  Protocol  // Throughput or Latency
	// Items is how many items Throughput queues (1..MaxItems), or how
	// many round trips Latency makes (1..MaxRoundTrips).
	Items int
	// Workers is the pool's size (ignored by the baseline);
	// 1..workerpool.MaxWorkers.
	Workers int
	// BatchSize is how many items one EnqueueBatch call queues in the
	// Throughput protocol; 0 queues them all in one call. The pool copies
	// the jobs, so one slice of this size is reused.
	BatchSize int
}

// countJob is the tiny item: it counts itself, as the seed harness's items
// decrement a shared counter, so a run can check how many items ran in all.
// Every item is the same job value, so that total is all there is to check.
type countJob struct{ n atomic.Int64 }

// Run counts one run of the item, from any worker.
func (j *countJob) Run(int) { j.n.Add(1) }

// Measure runs one protocol once and returns its wall time: from the first
// submission until the last item has run (Throughput), or the sum of every
// round trip (Latency). Pool start-up and shutdown are not timed. It fails
// unless exactly Items item runs were counted in all.
//
// It looks at ctx every 1024 items submitted or round trips, and while
// waiting. If ctx ends first, Measure drops the items still queued
// (workerpool.Pool.Discard) instead of running them, and returns within
// milliseconds an error wrapping ctx.Err().
func Measure(ctx context.Context, r Run) (time.Duration, error) {
	if err := r.validate(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("pool %v: %w", r.Protocol, err)
	}
	job := new(countJob)
	var elapsed time.Duration
	var err error
	if r.Contender.Baseline {
		elapsed, err = runGoroutines(ctx, r, job)
	} else {
		elapsed, err = runOurPool(ctx, r, job)
	}
	if err != nil {
		return 0, fmt.Errorf("pool %v, %v: %w", r.Protocol, r.Contender, err)
	}
	if got := job.n.Load(); got != int64(r.Items) {
		return 0, fmt.Errorf("pool %v, %v: %d items ran, want %d", r.Protocol, r.Contender, got, r.Items)
	}
	return elapsed, nil
}

func (r Run) validate() error {
	most := MaxItems
	switch r.Protocol {
	case Throughput:
	case Latency:
		most = MaxRoundTrips
	default:
		return fmt.Errorf("%w: protocol %v", seeds.ErrInvalidOptions, r.Protocol)
	}
	switch {
	case r.Items < 1 || r.Items > most:
		return fmt.Errorf("%w: items = %d, want 1..%d for %v", seeds.ErrInvalidOptions, r.Items, most, r.Protocol)
	case r.Workers < 1 || r.Workers > workerpool.MaxWorkers:
		return fmt.Errorf("%w: workers = %d, want 1..%d", seeds.ErrInvalidOptions, r.Workers, workerpool.MaxWorkers)
	case r.BatchSize < 0:
		return fmt.Errorf("%w: batch size = %d, want ≥ 0 (0: all at once)", seeds.ErrInvalidOptions, r.BatchSize)
	}
	return nil
}

func runGoroutines(ctx context.Context, r Run, job *countJob) (time.Duration, error) {
	var wg sync.WaitGroup
	item := func() { job.Run(jobs.Inline) }
	start := time.Now()
	for i := range r.Items {
		if i%seeds.StopEvery == 0 && ctx.Err() != nil {
			wg.Wait()
			return 0, ctx.Err()
		}
		wg.Go(item)
		if r.Protocol == Latency {
			wg.Wait()
		}
	}
	wg.Wait()
	return time.Since(start), nil
}

func runOurPool(ctx context.Context, r Run, job *countJob) (time.Duration, error) {
	c := r.Contender
	p, err := workerpool.New(workerpool.Options{Workers: r.Workers, Backend: c.Backend, Wake: c.Wake})
	if err != nil {
		return 0, err
	}
	defer func() {
		p.Discard() // nothing is left after a whole run; after a stop, the rest need not run
		p.Close()
	}()
	var batch []jobs.Job
	if r.Protocol != Latency && r.Contender.Batch {
		batch = batchOf(r, job) // before the clock: the per-item contenders build nothing
	}
	start := time.Now()
	if r.Protocol == Latency {
		err = roundTrips(ctx, p, r, job)
	} else {
		err = queueAll(ctx, p, r, job, batch)
	}
	if err == nil {
		err = p.Join(ctx)
	}
	if err != nil {
		return 0, err
	}
	elapsed := time.Since(start)
	if err := p.Close(); err != nil {
		return 0, err
	}
	return elapsed, nil
}

// roundTrips is the Latency protocol: submit one item, wait for it, again.
func roundTrips(ctx context.Context, p *workerpool.Pool, r Run, job *countJob) error {
	batch := []jobs.Job{job}
	for i := range r.Items {
		var err error
		if r.Contender.Batch {
			err = p.EnqueueBatch(batch)
		} else {
			err = p.Enqueue(job)
		}
		if err == nil {
			err = p.Join(ctx) // looks at ctx only if the item is not done yet
		}
		if err == nil && i%seeds.StopEvery == 0 {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// batchOf is the slice a batch contender submits, BatchSize jobs (all of
// them for -1 or a size above Items) at a time.
func batchOf(r Run, job *countJob) []jobs.Job {
	size := r.BatchSize
	if size == 0 || size > r.Items {
		size = r.Items
	}
	batch := make([]jobs.Job, size)
	for i := range batch {
		batch[i] = job
	}
	return batch
}

// queueAll is the Throughput protocol's submission: every item, one at a
// time or BatchSize at a time from batch, looking at ctx every 1024 items
// (or every batch).
func queueAll(ctx context.Context, p *workerpool.Pool, r Run, job *countJob, batch []jobs.Job) error {
	if !r.Contender.Batch {
		for i := range r.Items {
			if i%seeds.StopEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := p.Enqueue(job); err != nil {
				return err
			}
		}
		return nil
	}
	size := len(batch)
	for left := r.Items; left > 0; left -= size {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.EnqueueBatch(batch[:min(left, size)]); err != nil {
			return err
		}
	}
	return nil
}

// Options configures Compare. The zero value reproduces the seed's
// protocols with every backend and wake policy.
type Options struct {
	Protocols   []Protocol // default Throughput, Latency
	Items       int        // Throughput items, 1..MaxItems; default 10,000,000
	RoundTrips  int        // Latency round trips, 1..MaxRoundTrips; default 300,000
	Repetitions int        // 1..MaxRepetitions; default 5
	Workers     int        // pool size, 1..workerpool.MaxWorkers; default GOMAXPROCS
	// BatchSize is the items per EnqueueBatch call in Throughput,
	// 1..MaxItems; default 1024; -1 = all at once.
	BatchSize int
	Backends  []workerpool.Backend    // default Goroutines, Threads (Native only when asked for)
	Wakes     []workerpool.WakePolicy // default Broadcast, Signal, Targeted, Spin
	// Progress, if set, is called after each run with the runs done and
	// the total, from the calling goroutine.
	Progress func(done, total int)
}

// defaultBackends are the backends of Options' zero Backends.
func defaultBackends() []workerpool.Backend {
	return []workerpool.Backend{workerpool.Goroutines, workerpool.Threads}
}

// Defaults for Options' zero fields.
const (
	DefaultItems       = 10_000_000
	DefaultRoundTrips  = 300_000
	DefaultRepetitions = 5
	DefaultBatchSize   = 1024
)

func (o Options) withDefaults() (Options, error) {
	if len(o.Protocols) == 0 {
		o.Protocols = []Protocol{Throughput, Latency}
	}
	if o.Items == 0 {
		o.Items = DefaultItems
	}
	if o.RoundTrips == 0 {
		o.RoundTrips = DefaultRoundTrips
	}
	if o.Repetitions == 0 {
		o.Repetitions = DefaultRepetitions
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch o.BatchSize {
	case 0:
		o.BatchSize = DefaultBatchSize
	case -1:
		o.BatchSize = 0
	}
	if len(o.Backends) == 0 {
		o.Backends = defaultBackends()
	}
	if len(o.Wakes) == 0 {
		o.Wakes = []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Signal, workerpool.Targeted, workerpool.Spin}
	}
	if err := o.validateCounts(); err != nil {
		return o, err
	}
	for _, p := range o.Protocols {
		if p != Throughput && p != Latency {
			return o, fmt.Errorf("%w: protocol %v", seeds.ErrInvalidOptions, p)
		}
	}
	return o, o.validateTotals()
}

func (o Options) validateCounts() error {
	switch {
	case o.Items < 1 || o.Items > MaxItems:
		return fmt.Errorf("%w: items = %d, want 1..%d", seeds.ErrInvalidOptions, o.Items, MaxItems)
	case o.RoundTrips < 1 || o.RoundTrips > MaxRoundTrips:
		return fmt.Errorf("%w: round trips = %d, want 1..%d", seeds.ErrInvalidOptions, o.RoundTrips, MaxRoundTrips)
	case o.Repetitions < 1 || o.Repetitions > MaxRepetitions:
		return fmt.Errorf("%w: repetitions = %d, want 1..%d", seeds.ErrInvalidOptions, o.Repetitions, MaxRepetitions)
	case o.Workers < 1 || o.Workers > workerpool.MaxWorkers:
		return fmt.Errorf("%w: workers = %d, want 1..%d", seeds.ErrInvalidOptions, o.Workers, workerpool.MaxWorkers)
	case o.BatchSize < 0 || o.BatchSize > MaxItems:
		return fmt.Errorf("%w: batch size = %d, want 1..%d or -1 for all at once", seeds.ErrInvalidOptions, o.BatchSize, MaxItems)
	}
	return nil
}

// validateTotals bounds the comparison's items and round trips in all.
func (o Options) validateTotals() error {
	contenders := 1 + 2*len(o.Backends)*len(o.Wakes) // the lists would not fit in memory before this overflowed
	for _, p := range o.Protocols {
		limit, what := uint64(MaxTotalItems), "items"
		if p == Latency {
			limit, what = MaxTotalRoundTrips, "round trips"
		}
		if _, ok := seeds.MulBounded(limit, o.Repetitions, contenders, o.itemsFor(p)); !ok {
			return fmt.Errorf("%w: repetitions × contenders × %s = %d × %d × %d, want at most %d %s in all",
				seeds.ErrInvalidOptions, what, o.Repetitions, contenders, o.itemsFor(p), limit, what)
		}
	}
	return nil
}

// itemsFor is how many items (Throughput) or round trips (Latency) a run of
// protocol p makes.
func (o Options) itemsFor(p Protocol) int {
	if p == Latency {
		return o.RoundTrips
	}
	return o.Items
}

// Contenders lists the contenders Compare runs for these options: the
// baseline first, then every backend × wake policy × {Enqueue, EnqueueBatch}
// but the pairs a backend does not have (Native × Spin), as
// workerpool.Options.Validate rules them out.
func (o Options) Contenders() []Contender {
	o, _ = o.withDefaults()
	cs := []Contender{{Baseline: true}}
	for _, b := range o.Backends {
		for _, w := range o.Wakes {
			if !poolHas(b, w) {
				continue
			}
			for _, batch := range []bool{false, true} {
				cs = append(cs, Contender{Backend: b, Wake: w, Batch: batch})
			}
		}
	}
	return cs
}

// poolHas reports whether backend b has wake policy w, asking the pool's
// own rule: an unknown value is not dropped here but refused by
// workerpool.New when its run starts.
func poolHas(b workerpool.Backend, w workerpool.WakePolicy) bool {
	err := workerpool.Options{Backend: b, Wake: w}.Validate()
	return !errors.Is(err, workerpool.ErrUnsupported)
}

// Report is the protocols' table: one row per contender.
type Report struct {
	Workers int `json:"workers"` // every pool's size
	// GOMAXPROCS is the runtime's setting when the runs started: on the
	// Threads backend it decides whether a woken worker finds a P at once
	// (GOMAXPROCS ≥ Workers+1) or may wait for sysmon to retake one.
	GOMAXPROCS int `json:"gomaxprocs"`
	Items      int `json:"throughput_items"`    // items of each Throughput run
	RoundTrips int `json:"latency_round_trips"` // round trips of each Latency run
	BatchSize  int `json:"batch_size"`          // 0: all items in one EnqueueBatch
	// Repetitions is how many repetitions the rows summarize: all that were
	// asked for, or, in a partial report, those completed, or 1 if the stop
	// fell in the first (the rows then hold the runs that finished).
	Repetitions int   `json:"repetitions"`
	Rows        []Row `json:"rows"` // one per contender, the baseline first
	// Partial is set when Compare stopped early (its error says why):
	// the rows summarize the repetitions completed before the stop, or the
	// runs that finished if it stopped in the first.
	Partial bool `json:"partial,omitempty"`
}

// Row is one contender's medians for each protocol that ran.
type Row struct {
	Contender  string `json:"contender"`            // Contender.String
	Backend    string `json:"backend,omitempty"`    // empty for the baseline
	Wake       string `json:"wake,omitempty"`       // empty for the baseline
	API        string `json:"api"`                  // "go", "enqueue" or "batch"
	Throughput *Stats `json:"throughput,omitempty"` // nil unless Throughput ran
	Latency    *Stats `json:"latency,omitempty"`    // nil unless Latency ran
}

// Stats summarizes one contender's repetitions of one protocol.
type Stats struct {
	Seconds   float64 `json:"seconds"`     // median wall time
	PerItemNs float64 `json:"per_item_ns"` // median / items (or round trips)
	// Speedup is the baseline's median time over this contender's: above 1
	// the contender is faster than a goroutine per item.
	Speedup float64   `json:"speedup_vs_goroutines"`
	Samples []float64 `json:"samples_seconds"` // every repetition's wall time, in run order
	// Speedups are each repetition's speedup, the baseline's time in
	// that repetition over this contender's (the two ran in the same
	// interleaved round), in run order: the spread of Speedup.
	Speedups []float64 `json:"speedups_vs_goroutines,omitempty"`
}

// Compare runs every protocol for every contender, interleaved: each
// repetition runs each contender once per protocol, starting the rotation
// one contender later than the previous repetition, so that drift on a
// shared machine hits all contenders alike.
//
// If a run fails — ctx ending, for one — Compare returns that error
// and a report with Partial set of what finished: the complete
// repetitions (the interrupted repetition's runs are left out, so every
// row has the same number of samples), or, if the stop fell in the first
// repetition, the runs that finished, one each, with Repetitions 1 and
// nil stats (a row left out if it has none) for the runs that did not.
// The report is nil if no run finished.
func Compare(ctx context.Context, opt Options) (*Report, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	cs := opt.Contenders()
	procs := runtime.GOMAXPROCS(0)
	samples, reps, err := runPools(ctx, opt, cs)
	if reps == 0 {
		reps = 1 // the first repetition, as far as it went: each run finished has one sample
	}
	rep := &Report{Workers: opt.Workers, GOMAXPROCS: procs, Items: opt.Items, RoundTrips: opt.RoundTrips,
		BatchSize: opt.BatchSize, Repetitions: reps, Partial: err != nil}
	for i, c := range cs {
		row := Row{Contender: c.String(), API: c.api()}
		if !c.Baseline {
			row.Backend, row.Wake = c.Backend.String(), c.Wake.String()
		}
		for _, proto := range opt.Protocols {
			own, base := samples[proto][i], samples[proto][0]
			if len(own) < reps || len(base) < reps { // stopped in the first repetition before this run (or the baseline's) finished
				continue
			}
			st := summarizePool(own[:reps], base[:reps], opt.itemsFor(proto))
			if proto == Throughput {
				row.Throughput = st
			} else {
				row.Latency = st
			}
		}
		if row.Throughput != nil || row.Latency != nil {
			rep.Rows = append(rep.Rows, row)
		}
	}
	if len(rep.Rows) == 0 {
		return nil, err
	}
	return rep, err
}

// runPools runs the comparison's repetitions and returns the samples in
// seconds, per protocol and contender, and how many repetitions were
// completed, stopping at the first error.
func runPools(ctx context.Context, opt Options, cs []Contender) (map[Protocol][][]float64, int, error) {
	samples := make(map[Protocol][][]float64)
	for _, p := range opt.Protocols {
		samples[p] = make([][]float64, len(cs))
	}
	total, done := opt.Repetitions*len(opt.Protocols)*len(cs), 0 // ≤ MaxTotalItems
	for rep := range opt.Repetitions {
		for _, proto := range opt.Protocols {
			for k := range cs {
				i := (k + rep) % len(cs)
				d, err := Measure(ctx, Run{Contender: cs[i], Protocol: proto, Items: opt.itemsFor(proto), Workers: opt.Workers, BatchSize: opt.BatchSize})
				if err != nil {
					return samples, rep, err
				}
				samples[proto][i] = append(samples[proto][i], d.Seconds())
				if done++; opt.Progress != nil {
					opt.Progress(done, total)
				}
			}
		}
	}
	return samples, opt.Repetitions, nil
}

// summarizePool is one contender's statistics for one protocol, its
// speedup measured against the baseline's samples; the medians are
// package stats', as every statistic gcbench reports.
func summarizePool(secs, baseline []float64, items int) *Stats {
	st := &Stats{Seconds: stats.Summarize(secs).Median, Samples: secs}
	st.PerItemNs = st.Seconds * 1e9 / float64(items)
	st.Speedup = stats.Summarize(baseline).Median / st.Seconds
	st.Speedups = stats.PairedRatios(baseline, secs)
	return st
}

// Best returns the row with the highest speedup for protocol p among the
// rows whose API is api ("enqueue" or "batch"), or nil if none ran.
func (r *Report) Best(p Protocol, api string) *Row {
	var best *Row
	var bestSpeedup float64
	for i := range r.Rows {
		row := &r.Rows[i]
		st := row.Throughput
		if p == Latency {
			st = row.Latency
		}
		if row.API != api || st == nil {
			continue
		}
		if best == nil || st.Speedup > bestSpeedup {
			best, bestSpeedup = row, st.Speedup
		}
	}
	return best
}
