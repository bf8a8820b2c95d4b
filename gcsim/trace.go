package gcsim

import (
	"fmt"
	"math"
	"sync"

	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// The trace event kinds a Sim writes with Config.Trace, through its
// TraceObserver. Their numbers are part of the files gcbench has written
// (trace.KindStress is 1): they never change, so every trace still reads
// with the same meaning. Arg is the collection number (from 1) for
// collection events, the number of jobs for TraceEnqueue, and the worker
// for the others, in two's complement (jobs.Inline, −1, is 2^64−1).
const (
	TraceCollectionStart trace.Kind = 2 // a minor collection's pause began
	TraceCollectionEnd   trace.Kind = 3 // the pause ended
	TraceJobStart        trace.Kind = 4 // a worker started a job
	TraceJobEnd          trace.Kind = 5 // a worker finished a job
	TraceEnqueue         trace.Kind = 6 // one call enqueued Arg jobs
	TraceWake            trace.Kind = 7 // a parked worker woke up
	TraceFutileWake      trace.Kind = 8 // a worker woke and found no job it may run
	// TraceWakesUnrecorded, written once before the first collection,
	// says that the pool's backend does not report wakes and futile
	// wakes (Native: they happen in C), so their absence is no finding.
	TraceWakesUnrecorded trace.Kind = 9
	// TraceKernelCounter is one of a collection's KernelCounters that its
	// record counted, written just after the collection's end: Arg is the
	// value, the payload the counter's key ("wakeups_elsewhere").
	TraceKernelCounter trace.Kind = 10
)

// maxModeName bounds the mode name a collection's slice takes from its
// payload, so that a crafted file cannot grow a name without bound (and
// the export's name buffer never needs to grow).
const maxModeName = 32

// maxCounterKey bounds the name a kernel counter's instant takes from its
// payload, as maxModeName does a collection's.
const maxCounterKey = 64

var traceKindNames = [...]string{
	TraceCollectionStart: "collection-start",
	TraceCollectionEnd:   "collection-end",
	TraceJobStart:        "job-start",
	TraceJobEnd:          "job-end",
	TraceEnqueue:         "enqueue",
	TraceWake:            "wake",
	TraceFutileWake:      "futile-wake",
	TraceWakesUnrecorded: "wakes-unrecorded",
	TraceKernelCounter:   "kernel-counter",
}

// wakesUnrecordedName is TraceWakesUnrecorded's name in the Chrome export:
// a sentence for the reader of the timeline.
const wakesUnrecordedName = "wakes not recorded: the native backend's workers wake in C"

// TraceKindName returns the name of one of the Trace kinds above
// ("collection-start", "job-end", "futile-wake", …), and k.String() for
// any other kind, so that every kind of a trace has a name.
func TraceKindName(k trace.Kind) string {
	if int(k) < len(traceKindNames) && traceKindNames[k] != "" {
		return traceKindNames[k]
	}
	return k.String()
}

// TraceObserver records a worker pool's and a collector's events into a
// trace.Session: it is a workerpool.Observer, and the collector adds
// CollectionStart and CollectionEnd.
//
// Every method is safe for concurrent use. Each worker has its own
// trace.Writer behind its own mutex, which only that worker takes in the
// usual case (its own job and wake events); events of jobs.Inline,
// out-of-range workers, enqueues and collections share one more Writer.
type TraceObserver struct {
	workers []lockedWriter
	shared  lockedWriter
	modes   [][]byte // each Mode's name, the payload of its collections' events, built once
	keys    [][]byte // each KernelCounters counter's key, by Counter, built once
}

var _ workerpool.Observer = (*TraceObserver)(nil)

// lockedWriter serializes one trace.Writer, which is not safe for
// concurrent use.
type lockedWriter struct {
	mu sync.Mutex
	w  *trace.Writer
	_  [40]byte // one worker's lock per cache line
}

func (l *lockedWriter) write(k trace.Kind, arg uint64) { l.writePayload(k, arg, nil) }

func (l *lockedWriter) writePayload(k trace.Kind, arg uint64, payload []byte) {
	l.mu.Lock()
	l.w.Write(k, arg, payload)
	l.mu.Unlock()
}

// NewTraceObserver registers workers+1 writers in s: writer i for worker i
// and writer `workers` for the shared events. A negative workers is an
// error wrapping ErrInvalidConfig.
func NewTraceObserver(s *trace.Session, workers int) (*TraceObserver, error) {
	if workers < 0 {
		return nil, fmt.Errorf("gcsim: trace observer for %d workers: %w", workers, ErrInvalidConfig)
	}
	o := &TraceObserver{workers: make([]lockedWriter, workers)}
	for _, m := range Modes() {
		for len(o.modes) <= int(m) {
			o.modes = append(o.modes, nil)
		}
		o.modes[m] = []byte(m.String())
	}
	o.keys = make([][]byte, len(Counters()))
	for _, c := range KernelCounters() {
		o.keys[c] = []byte(c.String())
	}
	for i := range o.workers {
		w, err := s.NewWriter()
		if err != nil {
			return nil, err
		}
		o.workers[i].w = w
	}
	w, err := s.NewWriter()
	if err != nil {
		return nil, err
	}
	o.shared.w = w
	return o, nil
}

func (o *TraceObserver) worker(worker int) *lockedWriter {
	if worker >= 0 && worker < len(o.workers) {
		return &o.workers[worker]
	}
	return &o.shared
}

// JobStart records that worker started a job (worker may be jobs.Inline).
func (o *TraceObserver) JobStart(worker int) { o.worker(worker).write(TraceJobStart, uint64(worker)) }

// JobEnd records that worker finished a job.
func (o *TraceObserver) JobEnd(worker int) { o.worker(worker).write(TraceJobEnd, uint64(worker)) }

// Enqueued records that one call enqueued n jobs.
func (o *TraceObserver) Enqueued(n int) { o.shared.write(TraceEnqueue, uint64(n)) }

// Woken records that a parked worker woke up.
func (o *TraceObserver) Woken(worker int) { o.worker(worker).write(TraceWake, uint64(worker)) }

// FutileWake records that worker woke and found no runnable job.
func (o *TraceObserver) FutileWake(worker int) {
	o.worker(worker).write(TraceFutileWake, uint64(worker))
}

// CollectionStart records the start of collection number gc's pause in
// mode, whose name is the event's payload.
func (o *TraceObserver) CollectionStart(gc uint64, mode Mode) {
	o.shared.writePayload(TraceCollectionStart, gc, o.modeName(mode))
}

// CollectionEnd records the end of collection number gc's pause in mode.
func (o *TraceObserver) CollectionEnd(gc uint64, mode Mode) {
	o.shared.writePayload(TraceCollectionEnd, gc, o.modeName(mode))
}

// KernelCounters records, after a collection's end, each of
// KernelCounters that rec counted (Counter.Value), as a TraceKernelCounter
// event; it writes none for a collection that counted none. The values
// are whole counts.
func (o *TraceObserver) KernelCounters(rec *Record) {
	for _, c := range KernelCounters() {
		if v, ok := c.Value(rec); ok {
			o.shared.writePayload(TraceKernelCounter, uint64(v), o.keys[c])
		}
	}
}

// WakesUnrecorded records that the pool does not report its wakes (see
// TraceWakesUnrecorded).
func (o *TraceObserver) WakesUnrecorded() { o.shared.write(TraceWakesUnrecorded, 0) }

func (o *TraceObserver) modeName(m Mode) []byte {
	if m >= 0 && int(m) < len(o.modes) {
		return o.modes[m]
	}
	return nil
}

// Processes of the Chrome export (ChromeTracks).
const (
	chromePoolPID    = 1 // the collector's track and one track per worker
	chromeWritersPID = 2 // other kinds, on their writers' tracks (trace.WriterTracks)
)

// ChromeTracks is the trace.ChromeMapping of a Sim's traces, for
// trace.ExportChrome: in a "pool" process, the "collector" track carries
// collection slices named by their mode, enqueues, the jobs run inline
// (jobs.Inline), on the Native backend the note that wakes are not
// recorded, and after each collection its kernel counters (instants named
// by the counter's key, its value as "value"), and
// worker w's track ("worker w", thread id w+1) its job slices, wakes and
// futile wakes; events of other kinds go on their writers' tracks in a
// "writers" process. Collection slices carry their number as "gc" and
// enqueues their job count as "jobs". It allocates nothing per event.
type ChromeTracks struct{}

var _ trace.ChromeMapping = ChromeTracks{}

// Place puts ev on the collector's or its worker's track.
func (ChromeTracks) Place(ev trace.Event) trace.ChromePlace {
	collector := trace.ChromeTrack{PID: chromePoolPID}
	switch ev.Kind {
	case TraceCollectionStart:
		return trace.ChromePlace{Track: collector, Phase: trace.ChromeBegin, ArgName: "gc"}
	case TraceCollectionEnd:
		return trace.ChromePlace{Track: collector, Phase: trace.ChromeEnd, ArgName: "gc"}
	case TraceEnqueue:
		return trace.ChromePlace{Track: collector, Phase: trace.ChromeInstant, ArgName: "jobs"}
	case TraceJobStart:
		return trace.ChromePlace{Track: workerTrack(ev.Arg), Phase: trace.ChromeBegin}
	case TraceJobEnd:
		return trace.ChromePlace{Track: workerTrack(ev.Arg), Phase: trace.ChromeEnd}
	case TraceWake, TraceFutileWake:
		return trace.ChromePlace{Track: workerTrack(ev.Arg), Phase: trace.ChromeInstant}
	case TraceWakesUnrecorded:
		return trace.ChromePlace{Track: collector, Phase: trace.ChromeInstant}
	case TraceKernelCounter:
		return trace.ChromePlace{Track: collector, Phase: trace.ChromeInstant, ArgName: "value"}
	}
	return trace.WriterTracks{PID: chromeWritersPID}.Place(ev)
}

// workerTrack is the track of the worker in arg, two's complement:
// jobs.Inline (−1) runs on the collector's goroutine, and so do indices
// that have no track id (other negatives, and MaxInt64, whose id would
// overflow).
func workerTrack(arg uint64) trace.ChromeTrack {
	tr := trace.ChromeTrack{PID: chromePoolPID}
	if w := int64(arg); w >= 0 && w < math.MaxInt64 {
		tr.TID = w + 1
	}
	return tr
}

// AppendName names collection slices "collection MODE" ("collection
// perjob"; "collection" in a trace written before they carried their mode),
// job slices "job", the backend's note that it does not report wakes as a
// sentence, and other events by TraceKindName.
func (ChromeTracks) AppendName(b []byte, ev trace.Event) []byte {
	switch ev.Kind {
	case TraceCollectionStart, TraceCollectionEnd:
		b = append(b, "collection"...)
		if mode := ev.Payload[:min(len(ev.Payload), maxModeName)]; len(mode) > 0 {
			b = append(append(b, ' '), mode...)
		}
		return b
	case TraceWakesUnrecorded:
		return append(b, wakesUnrecordedName...)
	case TraceKernelCounter:
		return append(b, ev.Payload[:min(len(ev.Payload), maxCounterKey)]...)
	case TraceJobStart, TraceJobEnd:
		return append(b, "job"...)
	case TraceEnqueue, TraceWake, TraceFutileWake:
		return append(b, traceKindNames[ev.Kind]...)
	}
	return trace.WriterTracks{}.AppendName(b, ev)
}

// ProcessName is "pool" or "writers".
func (ChromeTracks) ProcessName(pid int) string {
	if pid == chromePoolPID {
		return "pool"
	}
	return trace.WriterTracks{}.ProcessName(pid)
}

// ThreadName is "collector", "worker N" or "writer N".
func (ChromeTracks) ThreadName(tr trace.ChromeTrack) string {
	switch {
	case tr.PID != chromePoolPID:
		return trace.WriterTracks{}.ThreadName(tr)
	case tr.TID == 0:
		return "collector"
	}
	return fmt.Sprintf("worker %d", tr.TID-1)
}
