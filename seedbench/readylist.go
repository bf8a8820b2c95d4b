package seedbench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gcbench/gcbench/jobs"
)

// ErrInvalidOptions is wrapped by every error about a bad option value.
var ErrInvalidOptions = errors.New("invalid options")

// ListKind names a completion-list implementation.
type ListKind int

const (
	// MPSC is jobs.MPSCList: a push is one atomic swap (epoll's lockless
	// ready list after Linux 5.1).
	MPSC ListKind = iota
	// Mutex is jobs.MutexList: every push and pop takes one mutex (the
	// spinlock-guarded ready list before it).
	Mutex
)

var listKindNames = [...]string{MPSC: "mpsc", Mutex: "mutex"}

func (k ListKind) String() string {
	if k < 0 || int(k) >= len(listKindNames) {
		return fmt.Sprintf("ListKind(%d)", int(k))
	}
	return listKindNames[k]
}

// ParseListKind returns the kind named s ("mpsc" or "mutex").
func ParseListKind(s string) (ListKind, error) {
	for i, n := range listKindNames {
		if strings.EqualFold(s, n) {
			return ListKind(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown list kind %q (want mpsc or mutex)", ErrInvalidOptions, s)
}

func (k ListKind) newList() jobs.CompletionList[int] {
	if k == Mutex {
		return new(jobs.MutexList[int])
	}
	return new(jobs.MPSCList[int])
}

// ReadyListRun is one run of the stress-epoll protocol.
type ReadyListRun struct {
	Kind      ListKind
	Producers int // producer goroutines, ≥ 1
	Events    int // events each producer generates, ≥ 1
}

func (r ReadyListRun) validate() error {
	switch {
	case r.Kind != MPSC && r.Kind != Mutex:
		return fmt.Errorf("%w: list kind %v", ErrInvalidOptions, r.Kind)
	case r.Producers < 1:
		return fmt.Errorf("%w: producers = %d, want ≥ 1", ErrInvalidOptions, r.Producers)
	case r.Events < 1:
		return fmt.Errorf("%w: events = %d, want ≥ 1", ErrInvalidOptions, r.Events)
	}
	return nil
}

// ReadyListSample is what one run measured.
type ReadyListSample struct {
	Kind      ListKind
	Producers int
	Events    int64         // all producers' events, every one counted by the consumer
	Pops      int64         // nodes the consumer popped (= pushes: 0→1 transitions)
	Elapsed   time.Duration // from the start signal until the consumer had seen every event
}

// EventsPerMs is the seed's metric: events per millisecond of run time.
func (s ReadyListSample) EventsPerMs() float64 {
	return float64(s.Events) / (float64(s.Elapsed) / float64(time.Millisecond))
}

// readyProducer is an eventfd stand-in: a counter the producer increments
// and the consumer swaps to zero, and the list node the producer pushes when
// its counter leaves zero. Padded so that producers do not share lines.
type readyProducer struct {
	count atomic.Int64
	node  jobs.Node[int]
	_     [128 - 8 - 24]byte
}

// RunReadyList runs the stress-epoll protocol once: Producers goroutines
// each add 1 to their own counter Events times, pushing their node onto the
// list whenever the counter goes from 0 to 1; one consumer (the calling
// goroutine) pops nodes, swaps each node's counter to 0 and sums, until it
// has seen every event. Time runs from the start signal (producers wait on
// it, started) to the consumer's last event. While the list is empty the
// consumer yields its processor, as epoll_wait would sleep.
func RunReadyList(ctx context.Context, r ReadyListRun) (ReadyListSample, error) {
	if err := r.validate(); err != nil {
		return ReadyListSample{}, err
	}
	if err := ctx.Err(); err != nil {
		return ReadyListSample{}, fmt.Errorf("readylist: %w", err)
	}
	list := r.Kind.newList()
	ps := make([]readyProducer, r.Producers)
	start := make(chan struct{})
	var ready, wg sync.WaitGroup
	for i := range ps {
		p := &ps[i]
		p.node.Value = i
		ready.Add(1)
		wg.Go(func() {
			ready.Done()
			<-start
			for range r.Events {
				if p.count.Add(1) == 1 {
					list.Push(&p.node)
				}
			}
		})
	}
	ready.Wait()
	total := int64(r.Producers) * int64(r.Events)
	var sum, pops int64
	done := ctx.Done()
	idle := 0
	t0 := time.Now()
	close(start)
	for sum < total {
		n, st := list.TryPop()
		if st == jobs.Popped {
			sum += ps[n.Value].count.Swap(0)
			pops++
			continue
		}
		if idle++; idle%256 == 0 {
			select {
			case <-done:
				wg.Wait() // producers run a bounded loop
				return ReadyListSample{}, fmt.Errorf("readylist: %w", ctx.Err())
			default:
			}
		}
		runtime.Gosched()
	}
	elapsed := time.Since(t0)
	wg.Wait()
	return ReadyListSample{Kind: r.Kind, Producers: r.Producers, Events: sum, Pops: pops, Elapsed: elapsed}, nil
}

// ReadyListOptions configures CompareReadyList. The zero value reproduces
// the seed's sweep.
type ReadyListOptions struct {
	Producers   []int // producer counts to sweep; default 8, 16, 32
	Events      int   // events per producer; default 1,000,000 (stress-epoll's ITERS)
	Repetitions int   // runs of each kind at each producer count; default 5
	// Progress, if set, is called after each run with the runs done and the
	// total, from the calling goroutine.
	Progress func(done, total int)
}

// Defaults for ReadyListOptions' zero fields.
var (
	DefaultReadyListProducers = []int{8, 16, 32}
)

const (
	DefaultReadyListEvents      = 1_000_000
	DefaultReadyListRepetitions = 5
)

func (o ReadyListOptions) withDefaults() (ReadyListOptions, error) {
	if len(o.Producers) == 0 {
		o.Producers = DefaultReadyListProducers
	}
	if o.Events == 0 {
		o.Events = DefaultReadyListEvents
	}
	if o.Repetitions == 0 {
		o.Repetitions = DefaultReadyListRepetitions
	}
	for _, p := range o.Producers {
		if p < 1 {
			return o, fmt.Errorf("%w: producers = %d, want ≥ 1", ErrInvalidOptions, p)
		}
	}
	if o.Events < 1 {
		return o, fmt.Errorf("%w: events = %d, want ≥ 1", ErrInvalidOptions, o.Events)
	}
	if o.Repetitions < 1 {
		return o, fmt.Errorf("%w: repetitions = %d, want ≥ 1", ErrInvalidOptions, o.Repetitions)
	}
	return o, nil
}

// ReadyListReport is the seed's table: per producer count, both kinds'
// medians and the ratio between them.
type ReadyListReport struct {
	Events      int            `json:"events_per_producer"`
	Repetitions int            `json:"repetitions"`
	Rows        []ReadyListRow `json:"rows"`
}

// ReadyListRow is one producer count.
type ReadyListRow struct {
	Producers int            `json:"producers"`
	MPSC      ReadyListStats `json:"mpsc"`
	Mutex     ReadyListStats `json:"mutex"`
	// Ratio is MPSC's median events/ms over the mutex list's: above 1 the
	// lock-free list is faster.
	Ratio float64 `json:"ratio"`
}

// ReadyListStats summarizes one kind's repetitions at one producer count.
type ReadyListStats struct {
	EventsPerMs float64   `json:"events_per_ms"` // median
	RunTimeMs   float64   `json:"run_time_ms"`   // median
	PushesPerMs float64   `json:"pushes_per_ms"` // median 0→1 transitions per ms
	Samples     []float64 `json:"events_per_ms_samples"`
}

// CompareReadyList runs both list kinds at every producer count, interleaved:
// each repetition runs every (count, kind) pair once, alternating which kind
// goes first, so that drift on a shared machine hits both alike.
func CompareReadyList(ctx context.Context, opt ReadyListOptions) (*ReadyListReport, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	type key struct {
		producers int
		kind      ListKind
	}
	samples := map[key][]ReadyListSample{}
	total, done := opt.Repetitions*len(opt.Producers)*2, 0
	for rep := range opt.Repetitions {
		for _, p := range opt.Producers {
			kinds := [2]ListKind{MPSC, Mutex}
			if rep%2 == 1 {
				kinds = [2]ListKind{Mutex, MPSC}
			}
			for _, k := range kinds {
				s, err := RunReadyList(ctx, ReadyListRun{Kind: k, Producers: p, Events: opt.Events})
				if err != nil {
					return nil, err
				}
				samples[key{p, k}] = append(samples[key{p, k}], s)
				if done++; opt.Progress != nil {
					opt.Progress(done, total)
				}
			}
		}
	}
	rep := &ReadyListReport{Events: opt.Events, Repetitions: opt.Repetitions}
	for _, p := range opt.Producers {
		row := ReadyListRow{
			Producers: p,
			MPSC:      summarizeReadyList(samples[key{p, MPSC}]),
			Mutex:     summarizeReadyList(samples[key{p, Mutex}]),
		}
		row.Ratio = row.MPSC.EventsPerMs / row.Mutex.EventsPerMs
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

func summarizeReadyList(ss []ReadyListSample) ReadyListStats {
	rates := make([]float64, len(ss))
	ms := make([]float64, len(ss))
	pushes := make([]float64, len(ss))
	for i, s := range ss {
		rates[i] = s.EventsPerMs()
		ms[i] = float64(s.Elapsed) / float64(time.Millisecond)
		pushes[i] = float64(s.Pops) / ms[i]
	}
	return ReadyListStats{EventsPerMs: Median(rates), RunTimeMs: Median(ms), PushesPerMs: Median(pushes), Samples: rates}
}
