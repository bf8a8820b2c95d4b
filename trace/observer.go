package trace

import (
	"fmt"
	"sync"
)

// Observer records a worker pool's and a collector's events into a
// session. It has the method set of gcbench's workerpool.Observer (JobStart,
// JobEnd, Enqueued, Woken, FutileWake), so a *Observer can be passed as a
// pool's Observer without this package importing the pool; the collector
// adds CollectionStart/CollectionEnd.
//
// Every method is safe for concurrent use. Each worker has its own Writer
// behind its own mutex, which only that worker takes in the usual case
// (its own job and wake events); events of jobs.Inline, out-of-range
// workers, enqueues and collections share one more Writer.
type Observer struct {
	workers []lockedWriter
	shared  lockedWriter
}

type lockedWriter struct {
	mu sync.Mutex
	w  *Writer
	_  [40]byte // one worker's lock per cache line
}

func (l *lockedWriter) write(k Kind, arg uint64) {
	l.mu.Lock()
	l.w.Write(k, arg, nil)
	l.mu.Unlock()
}

// NewObserver registers workers+1 writers in s: writer i for worker i and
// writer `workers` for the shared events.
func NewObserver(s *Session, workers int) (*Observer, error) {
	if workers < 0 {
		return nil, fmt.Errorf("%w: %d workers", ErrInvalidOptions, workers)
	}
	o := &Observer{workers: make([]lockedWriter, workers)}
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

func (o *Observer) worker(worker int) *lockedWriter {
	if worker >= 0 && worker < len(o.workers) {
		return &o.workers[worker]
	}
	return &o.shared
}

// JobStart records that worker started a job (worker may be jobs.Inline).
func (o *Observer) JobStart(worker int) { o.worker(worker).write(KindJobStart, uint64(worker)) }

// JobEnd records that worker finished a job.
func (o *Observer) JobEnd(worker int) { o.worker(worker).write(KindJobEnd, uint64(worker)) }

// Enqueued records that one call enqueued n jobs.
func (o *Observer) Enqueued(n int) { o.shared.write(KindEnqueue, uint64(n)) }

// Woken records that a parked worker woke up.
func (o *Observer) Woken(worker int) { o.worker(worker).write(KindWake, uint64(worker)) }

// FutileWake records that worker woke and found no runnable job.
func (o *Observer) FutileWake(worker int) { o.worker(worker).write(KindFutileWake, uint64(worker)) }

// CollectionStart records the start of collection number gc's pause.
func (o *Observer) CollectionStart(gc uint64) { o.shared.write(KindCollectionStart, gc) }

// CollectionEnd records the end of collection number gc's pause.
func (o *Observer) CollectionEnd(gc uint64) { o.shared.write(KindCollectionEnd, gc) }
