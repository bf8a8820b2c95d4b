package readylist

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/jobs/mpsc"
)

// ListKind names a completion-list implementation.
type ListKind int

const (
	// MPSC is mpsc.List: a push is one atomic swap (epoll's lockless
	// ready list after Linux 5.1).
	MPSC ListKind = iota
	// Mutex is mpsc.MutexList: every push and pop takes one mutex (the
	// spinlock-guarded ready list before it).
	Mutex
)

var listKinds = enum.New[ListKind]("ListKind", "list kind", seeds.ErrInvalidOptions, "mpsc", "mutex")

// String returns the kind's lower-case name, as ParseListKind accepts it,
// or "ListKind(n)" for a value without one.
func (k ListKind) String() string { return listKinds.String(k) }

// MarshalText returns the kind's name; a value without one is an error.
func (k ListKind) MarshalText() ([]byte, error) { return listKinds.Marshal(k) }

// UnmarshalText sets k from a name ParseListKind accepts.
func (k *ListKind) UnmarshalText(b []byte) error { return listKinds.Unmarshal(b, k) }

// ParseListKind returns the kind named s ("mpsc" or "mutex", ignoring
// case), or an error wrapping ErrInvalidOptions.
func ParseListKind(s string) (ListKind, error) { return listKinds.Parse(s) }

func (k ListKind) newList() mpsc.Queue[int] {
	if k == Mutex {
		return new(mpsc.MutexList[int])
	}
	return new(mpsc.List[int])
}

// Variant says which events go through the ready list's "ready" path.
type Variant int

const (
	// Transition: a producer touches the list only on its counter's 0→1
	// transition (its eventfd becoming readable), so the list sees one
	// push per batch of events the consumer has not swapped yet — far
	// fewer than one per event — and events/ms mostly measures the
	// producers' own counter increments.
	Transition Variant = iota
	// Callback models ep_poll_callback, which the kernel runs for every
	// eventfd write: every event goes through the ready path, which
	// deduplicates (is the node linked already?) and links the node if it
	// is not. Mutex: lock, check and link, unlock, per event (the
	// spinlock-guarded ready list before Linux 5.1). MPSC: a CAS on the
	// node's own linked flag per event and a push only when it wins, no
	// lock (the lockless append after 5.1; see runCallback for what the
	// model leaves out).
	Callback
)

var readyVariants = enum.New[Variant]("Variant", "ready-list variant", seeds.ErrInvalidOptions, "transition", "callback")

// String returns the variant's lower-case name, as ParseVariant
// accepts it, or "Variant(n)" for a value without one.
func (v Variant) String() string { return readyVariants.String(v) }

// MarshalText returns the variant's name; a value without one is an error.
func (v Variant) MarshalText() ([]byte, error) { return readyVariants.Marshal(v) }

// UnmarshalText sets v from a name ParseVariant accepts.
func (v *Variant) UnmarshalText(b []byte) error { return readyVariants.Unmarshal(b, v) }

// ParseVariant returns the variant named s ("transition" or
// "callback", ignoring case), or an error wrapping ErrInvalidOptions.
func ParseVariant(s string) (Variant, error) { return readyVariants.Parse(s) }

// VariantNames lists the names ParseVariant accepts, in value order.
func VariantNames() []string { return readyVariants.List() }

// Run is one run of the stress-epoll protocol.
type Run struct {
	Kind      ListKind // the list under test
	Variant   Variant  // zero: Transition
	Producers int      // producers, each on its own OS thread, 1..MaxProducers
	// Events is how many events each producer generates,
	// 1..MaxEvents, with Producers × Events ≤ MaxTotalEvents.
	Events int
}

func (r Run) validate() error {
	switch {
	case r.Kind != MPSC && r.Kind != Mutex:
		return fmt.Errorf("%w: list kind %v", seeds.ErrInvalidOptions, r.Kind)
	case r.Variant != Transition && r.Variant != Callback:
		return fmt.Errorf("%w: ready-list variant %v", seeds.ErrInvalidOptions, r.Variant)
	}
	if err := validateProducers(r.Producers); err != nil {
		return err
	}
	if err := validateEvents(r.Events); err != nil {
		return err
	}
	if _, ok := seeds.MulBounded(MaxTotalEvents, r.Producers, r.Events); !ok {
		return fmt.Errorf("%w: producers × events = %d × %d, want at most %d events in a run",
			seeds.ErrInvalidOptions, r.Producers, r.Events, MaxTotalEvents)
	}
	return nil
}

func validateProducers(n int) error {
	if n < 1 || n > MaxProducers {
		return fmt.Errorf("%w: producers = %d, want 1..%d", seeds.ErrInvalidOptions, n, MaxProducers)
	}
	return nil
}

func validateEvents(n int) error {
	if n < 1 || n > MaxEvents {
		return fmt.Errorf("%w: events = %d, want 1..%d", seeds.ErrInvalidOptions, n, MaxEvents)
	}
	return nil
}

// Sample is what one run measured.
type Sample struct {
	Kind      ListKind // as run
	Variant   Variant  // as run
	Producers int      // as run
	Events    int64    // all producers' events, every one counted by the consumer
	// Pops counts the nodes the consumer popped: the pushes (links), except
	// that in the Callback variants a producer may link its item once more
	// after the consumer has already counted that event, and the run ends
	// without popping it (at most one such link per producer).
	Pops    int64
	Elapsed time.Duration // from the start signal until the consumer had seen every event
	// The consumer's sleeps, which show that it never polls an empty list:
	// EmptyPolls counts its looks at the list that found nothing to pop
	// (each is followed by a sleep or by the recheck before one), Parks
	// its decisions to sleep, Waits its FUTEX_WAIT calls, and Wakes the
	// producers' FUTEX_WAKE calls (ep_poll_callback's wake_up).
	EmptyPolls, Parks, Waits, Wakes int64
	// Threads is how many distinct OS threads the producers and the
	// consumer ran on: Producers + 1 on Linux, where each has its own.
	Threads int
}

// EventsPerMs is the seed's metric: events per millisecond of run time.
func (s Sample) EventsPerMs() float64 {
	return float64(s.Events) / (float64(s.Elapsed) / float64(time.Millisecond))
}

// readyItem is an eventfd stand-in and its epitem: a counter the producer
// increments and the consumer swaps to zero, plus the producer's links in
// each kind of ready list.
type readyItem struct {
	count atomic.Int64
	node  mpsc.Node[int] // mpsc's lists; Value is the item's index
	// claimed is the lock-free callback's "linked" state: set by the CAS
	// that wins the right to push node, cleared by the consumer.
	claimed atomic.Bool
	// linked and next are the locked callback's list, under its mutex.
	linked bool
	next   *readyItem
}

// readyProducer pads a readyItem so that producers do not share lines.
type readyProducer struct {
	readyItem
	_ [128 - unsafe.Sizeof(readyItem{})%128]byte
}

// readyPath is how events reach the consumer in one variant and list kind.
// produce runs a producer's whole loop, so the per-event work is direct
// calls with no interface dispatch; pop is the consumer's: it removes one
// ready item, leaves it unlinked (free to be linked again), and reports
// false when nothing could be popped now.
//
// A producer calls its waiter's wake after each push (Transition) or each
// event (the Callbacks, as the kernel runs ep_poll_callback, wake check
// included, for every eventfd write); see readyWaiter.
type readyPath interface {
	produce(p *readyItem, events int)
	pop() (*readyItem, bool)
}

func newReadyPath(r Run, ps []readyProducer, w *readyWaiter) readyPath {
	switch {
	case r.Variant == Transition:
		return &transitionPath{list: r.Kind.newList(), ps: ps, w: w}
	case r.Kind == MPSC:
		return &lockfreeCallback{ps: ps, w: w}
	}
	return &lockedCallback{w: w}
}

// transitionPath pushes an item only when its counter leaves zero; the
// consumer's swap to zero re-arms it.
type transitionPath struct {
	list mpsc.Queue[int]
	ps   []readyProducer
	w    *readyWaiter
}

func (t *transitionPath) produce(p *readyItem, events int) {
	for range events {
		if p.count.Add(1) == 1 {
			t.list.Push(&p.node)
			t.w.wake()
		}
	}
}

func (t *transitionPath) pop() (*readyItem, bool) {
	n, st := t.list.TryPop()
	if st != mpsc.Popped {
		return nil, false
	}
	return &t.ps[n.Value].readyItem, true
}

// lockfreeCallback is ep_poll_callback after Linux 5.1, per event: claim
// the item with a CAS on its own linked flag (the kernel CASes epi->next)
// and push it on the MPSC list (one swap) only if the claim wins. The
// consumer clears the claim after popping and before swapping the counter,
// as epoll unlinks before it reads: an event added after the swap then
// finds the item unclaimed and links it again, so none is stranded.
//
// What the model leaves out: the kernel also takes the read side of
// ep->lock around every callback (two atomic adds on one shared word),
// because its consumer needs the write side as a barrier against in-flight
// appends. mpsc.List needs no such barrier (TryPop reports Pending
// instead), so producers here share no word except the list's head, and
// the kernel reads the linked state before its CAS where this CASes
// unconditionally.
type lockfreeCallback struct {
	list mpsc.List[int]
	ps   []readyProducer
	w    *readyWaiter
}

func (l *lockfreeCallback) produce(p *readyItem, events int) {
	for range events {
		p.count.Add(1)
		if p.claimed.CompareAndSwap(false, true) {
			l.list.Push(&p.node)
		}
		l.w.wake()
	}
}

func (l *lockfreeCallback) pop() (*readyItem, bool) {
	n, st := l.list.TryPop()
	if st != mpsc.Popped {
		return nil, false
	}
	p := &l.ps[n.Value].readyItem
	p.claimed.Store(false)
	return p, true
}

// lockedCallback is ep_poll_callback before Linux 5.1, per event: take the
// list's lock, link the item at the tail unless it is linked already, and
// unlock. The dedup check and the link must be one critical section, which
// mpsc.MutexList's API cannot express, so this is the same mutex-guarded
// intrusive FIFO with the linked flag under the same mutex (one lock per
// event, as epoll's spinlock). The consumer unlinks under the lock, then
// swaps the counter.
//
// A sync.Mutex is not the kernel's spinlock: a goroutine that fails to
// take it spins briefly and then parks, and a holder can be preempted,
// where the kernel holds the spinlock with interrupts off.
type lockedCallback struct {
	mu         sync.Mutex
	head, tail *readyItem
	w          *readyWaiter
}

func (l *lockedCallback) produce(p *readyItem, events int) {
	for range events {
		p.count.Add(1)
		l.mu.Lock()
		if !p.linked {
			p.linked, p.next = true, nil
			if l.tail == nil {
				l.head = p
			} else {
				l.tail.next = p
			}
			l.tail = p
		}
		l.mu.Unlock()
		l.w.wake()
	}
}

func (l *lockedCallback) pop() (*readyItem, bool) {
	l.mu.Lock()
	p := l.head
	if p == nil {
		l.mu.Unlock()
		return nil, false
	}
	l.head = p.next
	if l.head == nil {
		l.tail = nil
	}
	p.linked = false
	l.mu.Unlock()
	return p, true
}

// Measure runs the stress-epoll protocol once: Producers threads
// each add 1 to their own counter Events times, and their items reach the
// list as the Variant says (on the counter's 0→1 transition, or through
// the callback's ready path on every event); one consumer pops items,
// swaps each item's counter to 0 and sums, until it has seen every event.
// Time runs from the start signal (producers wait on it, started) to the
// consumer's last event.
//
// Every producer and the consumer run on goroutines locked to OS threads
// of their own (runtime.LockOSThread, never undone, so each thread ends
// with its goroutine), as stress-epoll's pthreads do: with GOMAXPROCS
// above the thread count the kernel, not the Go scheduler, decides who
// runs. When the list is empty the consumer sleeps in the kernel and the
// next producer to make an event ready wakes it, as epoll_wait sleeps
// until ep_poll_callback wakes it (readyWaiter): it never polls, so a
// run's rate does not depend on how often an idle consumer happened to
// get the CPU.
//
// Producers look at a stop flag, set when ctx ends, every 1024 events, and
// the flag's setter wakes a sleeping consumer; on a cancel Measure
// returns within milliseconds, with no sample and an error wrapping
// ctx.Err().
func Measure(ctx context.Context, r Run) (Sample, error) {
	if err := r.validate(); err != nil {
		return Sample{}, err
	}
	if err := ctx.Err(); err != nil {
		return Sample{}, fmt.Errorf("readylist: %w", err)
	}
	c := &readyConsumer{total: int64(r.Producers) * int64(r.Events)} // validated: ≤ MaxTotalEvents
	c.stop = new(atomic.Bool)
	defer context.AfterFunc(ctx, func() { c.stop.Store(true); c.w.wake() })()
	ps := make([]readyProducer, r.Producers)
	c.path = newReadyPath(r, ps, &c.w)
	tids := make([]int, r.Producers+1)
	start := make(chan struct{})
	var ready, wg sync.WaitGroup
	for i := range ps {
		ps[i].node.Value = i
		ready.Add(1)
		wg.Go(func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the producer
			tids[i] = seeds.ThreadID()
			ready.Done()
			<-start
			produceUntilStopped(c.path, &ps[i].readyItem, r.Events, c.stop)
		})
	}
	ready.Wait()
	elapsed := c.runLocked(start, &tids[r.Producers])
	wg.Wait()
	if c.stopped {
		return Sample{}, fmt.Errorf("readylist %v/%v: stopped after %d of %d events: %w", r.Variant, r.Kind, c.sum, c.total, ctx.Err())
	}
	return Sample{Kind: r.Kind, Variant: r.Variant, Producers: r.Producers, Events: c.sum, Pops: c.pops, Elapsed: elapsed,
		EmptyPolls: c.emptyPolls, Parks: c.parks, Waits: c.waits, Wakes: c.w.wakes.Load(), Threads: seeds.CountThreads(tids)}, nil
}

// produceUntilStopped runs a producer's loop in chunks of seeds.StopEvery events,
// so that the per-event loop itself is the one measured.
func produceUntilStopped(path readyPath, p *readyItem, events int, stop *atomic.Bool) {
	for left := events; left > 0 && !stop.Load(); left -= seeds.StopEvery {
		path.produce(p, min(left, seeds.StopEvery))
	}
}

// readyConsumer is the consumer's state: epoll_wait's caller.
type readyConsumer struct {
	path  readyPath
	w     readyWaiter
	stop  *atomic.Bool
	total int64
	// The consumer's own counters (see Sample).
	sum, pops, emptyPolls, parks, waits int64
	stopped                             bool
}

// runLocked runs the consumer on a goroutine locked to an OS thread of its
// own, records that thread's id in tid, starts the producers and returns
// the time from the start until the consumer had seen every event (or
// stopped).
func (c *readyConsumer) runLocked(start chan struct{}, tid *int) time.Duration {
	var elapsed time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with the consumer
		*tid = seeds.ThreadID()
		t0 := time.Now()
		close(start)
		c.consume()
		elapsed = time.Since(t0)
	}()
	<-done
	return elapsed
}

// consume pops and sums until it has seen total events or the stop flag is
// set, sleeping whenever nothing can be popped.
func (c *readyConsumer) consume() {
	for c.sum < c.total {
		if c.popOne() {
			continue
		}
		if c.stopped = c.stop.Load(); c.stopped || !c.park() {
			return
		}
	}
}

// popOne pops one item and adds its counter to the sum, or reports false
// (an empty poll) when nothing can be popped now.
func (c *readyConsumer) popOne() bool {
	p, ok := c.path.pop()
	if !ok {
		c.emptyPolls++
		return false
	}
	c.sum += p.count.Swap(0)
	c.pops++
	return true
}

// park is ep_poll's sleep: announce it, look once more (for an item or a
// stop), and sleep until a producer's wake unless that look found work. A
// Pending MPSC list (a push between its swap and its link) is slept on
// like an empty one: the pushing producer checks the waiter after its
// link and wakes the consumer then. It reports false if the consumer must
// stop.
func (c *readyConsumer) park() bool {
	c.parks++
	c.w.prepare()
	if c.stop.Load() {
		c.w.cancel()
		c.stopped = true
		return false
	}
	if c.popOne() {
		c.w.cancel()
		return true
	}
	c.waits += c.w.sleep()
	return true
}

// Options configures Compare. The zero value reproduces
// the seed's sweep.
type Options struct {
	Producers   []int // producer counts to sweep, each 1..MaxProducers; default 8, 16, 32
	Events      int   // events per producer, 1..MaxEvents; default 10,000,000 (stress-epoll's ITERS)
	Repetitions int   // runs of each kind at each producer count, 1..MaxRepetitions; default 5
	// Variants to run; default Transition and Callback, so the table shows
	// how much of the difference the dedup-per-event path makes.
	Variants []Variant
	// Progress, if set, is called after each run with the runs done and the
	// total, from the calling goroutine.
	Progress func(done, total int)
}

// DefaultProducers is the producer sweep of Options'
// zero Producers.
var DefaultProducers = []int{8, 16, 32}

// Defaults for Options' other zero fields. The events per
// producer are the ITERS of the stress-epoll run behind the seed commit's
// table (10,000,000; the later sweep version uses 1,000,000): with
// producers that never make a syscall per event, as here, a million
// events is a few tens of milliseconds, a handful of kernel time slices,
// too short for a run's rate to repeat.
const (
	DefaultEvents      = 10_000_000
	DefaultRepetitions = 5
)

func (o Options) withDefaults() (Options, error) {
	if len(o.Producers) == 0 {
		o.Producers = DefaultProducers
	}
	if o.Events == 0 {
		o.Events = DefaultEvents
	}
	if o.Repetitions == 0 {
		o.Repetitions = DefaultRepetitions
	}
	if len(o.Variants) == 0 {
		o.Variants = []Variant{Transition, Callback}
	}
	for i, v := range o.Variants {
		if v != Transition && v != Callback {
			return o, fmt.Errorf("%w: ready-list variant %v", seeds.ErrInvalidOptions, v)
		}
		if slices.Contains(o.Variants[:i], v) {
			return o, fmt.Errorf("%w: ready-list variant %v given twice", seeds.ErrInvalidOptions, v)
		}
	}
	for _, p := range o.Producers {
		if err := validateProducers(p); err != nil {
			return o, err
		}
	}
	if err := validateEvents(o.Events); err != nil {
		return o, err
	}
	if o.Repetitions < 1 || o.Repetitions > MaxRepetitions {
		return o, fmt.Errorf("%w: repetitions = %d, want 1..%d", seeds.ErrInvalidOptions, o.Repetitions, MaxRepetitions)
	}
	return o, o.validateTotal()
}

// validateTotal bounds the comparison's events in all.
func (o Options) validateTotal() error {
	sum := 0
	for _, p := range o.Producers {
		sum += p // each ≤ MaxProducers: the list would not fit in memory before this overflowed
	}
	if _, ok := seeds.MulBounded(MaxTotalEvents, o.Repetitions, len(o.Variants), 2, sum, o.Events); !ok {
		return fmt.Errorf("%w: repetitions × variants × 2 list kinds × producers × events = %d × %d × 2 × %d × %d, "+
			"want at most %d events in all", seeds.ErrInvalidOptions, o.Repetitions, len(o.Variants), sum, o.Events, MaxTotalEvents)
	}
	return nil
}

// Report is the seed's table: per variant and producer count, both
// kinds' medians and the ratio between them.
type Report struct {
	Events int `json:"events_per_producer"` // each run's events per producer
	// Repetitions is how many repetitions the rows summarize: all that were
	// asked for, or, in a partial report, those completed, or 1 if the stop
	// fell in the first (the rows then hold the runs that finished).
	Repetitions int   `json:"repetitions"`
	Rows        []Row `json:"rows"` // per variant, then per producer count, in option order
	// Partial is set when Compare stopped early (its error says
	// why): the rows summarize the repetitions completed before the stop,
	// or the runs that finished if it stopped in the first.
	Partial bool `json:"partial,omitempty"`
}

// Row is one variant at one producer count.
type Row struct {
	Variant   string `json:"variant"`   // "transition" or "callback"
	Producers int    `json:"producers"` // producer goroutines of every run in the row
	MPSC      Stats  `json:"mpsc"`      // the lock-free list's runs
	Mutex     Stats  `json:"mutex"`     // the mutex-guarded list's runs
	// Ratio is MPSC's median events/ms over the mutex list's: above 1 the
	// lock-free list is faster.
	Ratio float64 `json:"ratio"`
}

// Stats summarizes one kind's repetitions at one producer count.
type Stats struct {
	EventsPerMs float64   `json:"events_per_ms"`         // median
	RunTimeMs   float64   `json:"run_time_ms"`           // median
	PushesPerMs float64   `json:"pushes_per_ms"`         // median popped links (pushes) per ms
	Samples     []float64 `json:"events_per_ms_samples"` // every repetition's events/ms, in run order
}

// Compare runs both list kinds in every variant at every producer
// count, interleaved: each repetition runs every (variant, count, kind)
// once, alternating which kind goes first, so that drift on a shared
// machine hits both alike.
//
// If a run fails — ctx ending, for one — Compare returns that
// error and a report with Partial set of what finished: the complete
// repetitions (the interrupted repetition's runs are left out, so every
// row has the same number of samples), or, if the stop fell in the first
// repetition, the rows whose two runs finished, one run each, with
// Repetitions 1. The report is nil if no row's runs finished.
func Compare(ctx context.Context, opt Options) (*Report, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	samples, reps, err := runReadyLists(ctx, opt)
	if reps == 0 {
		reps = 1 // the first repetition, as far as it went
	}
	rep := &Report{Events: opt.Events, Repetitions: reps, Partial: err != nil}
	for _, v := range opt.Variants {
		for _, p := range opt.Producers {
			if len(samples[readyKey{v, p, MPSC}]) < reps || len(samples[readyKey{v, p, Mutex}]) < reps {
				continue // stopped in the first repetition before this row's runs finished
			}
			row := Row{
				Variant:   v.String(),
				Producers: p,
				MPSC:      summarizeReadyList(samples[readyKey{v, p, MPSC}][:reps]),
				Mutex:     summarizeReadyList(samples[readyKey{v, p, Mutex}][:reps]),
			}
			row.Ratio = row.MPSC.EventsPerMs / row.Mutex.EventsPerMs
			rep.Rows = append(rep.Rows, row)
		}
	}
	if len(rep.Rows) == 0 {
		return nil, err
	}
	return rep, err
}

type readyKey struct {
	variant   Variant
	producers int
	kind      ListKind
}

// runReadyLists runs the comparison's repetitions and returns the samples
// and how many repetitions were completed, stopping at the first error.
func runReadyLists(ctx context.Context, opt Options) (map[readyKey][]Sample, int, error) {
	samples := map[readyKey][]Sample{}
	total, done := opt.Repetitions*len(opt.Variants)*len(opt.Producers)*2, 0 // ≤ MaxTotalEvents
	for rep := range opt.Repetitions {
		for _, v := range opt.Variants {
			for _, p := range opt.Producers {
				kinds := [2]ListKind{MPSC, Mutex}
				if rep%2 == 1 {
					kinds = [2]ListKind{Mutex, MPSC}
				}
				for _, k := range kinds {
					s, err := Measure(ctx, Run{Kind: k, Variant: v, Producers: p, Events: opt.Events})
					if err != nil {
						return samples, rep, err
					}
					samples[readyKey{v, p, k}] = append(samples[readyKey{v, p, k}], s)
					if done++; opt.Progress != nil {
						opt.Progress(done, total)
					}
				}
			}
		}
	}
	return samples, opt.Repetitions, nil
}

// summarizeReadyList is one kind's statistics at one producer count: the
// medians (package stats', as every statistic gcbench reports) of each run's
// rates and run time.
func summarizeReadyList(ss []Sample) Stats {
	rates := make([]float64, len(ss))
	ms := make([]float64, len(ss))
	pushes := make([]float64, len(ss))
	for i, s := range ss {
		rates[i] = s.EventsPerMs()
		ms[i] = float64(s.Elapsed) / float64(time.Millisecond)
		pushes[i] = float64(s.Pops) / ms[i]
	}
	return Stats{
		EventsPerMs: stats.Summarize(rates).Median,
		RunTimeMs:   stats.Summarize(ms).Median,
		PushesPerMs: stats.Summarize(pushes).Median,
		Samples:     rates,
	}
}
