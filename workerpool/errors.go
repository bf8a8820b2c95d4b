package workerpool

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by Enqueue, EnqueueFunc, EnqueueBatch and
	// StartBatch after Close.
	ErrClosed = errors.New("workerpool: pool is closed")
	// ErrInvalidOptions is wrapped by every error New returns for bad
	// Options, and by ParseBackend, ParseWakePolicy and ParseQueueLayout.
	ErrInvalidOptions = errors.New("workerpool: invalid options")
	// ErrUnsupported is wrapped by New's error when the backend does not
	// exist on this operating system (Threads off Linux) or cannot carry an
	// option (the Native backend and MaxQueued), and by the errors of the
	// methods a backend does not carry (groups, Map, TryEnqueue,
	// EnqueueCtx and EnqueueBatchCtx on Native).
	ErrUnsupported = errors.New("not supported")
	// ErrJobPanicked is wrapped by the error Join returns for a job that
	// panicked; errors.As with *PanicError gives the value.
	ErrJobPanicked = errors.New("workerpool: job panicked")
	// ErrJobGoexit is the Value of the *PanicError Join reports for a job
	// that called runtime.Goexit (the worker is replaced): test for it
	// with errors.Is on Join's error.
	ErrJobGoexit = errors.New("job called runtime.Goexit")
	// ErrNilJob is returned by Enqueue, EnqueueBatch and StartBatch for a
	// nil job (a nil jobs.Func too), and by EnqueueFunc for a nil func; a
	// batch containing one is rejected whole.
	ErrNilJob = errors.New("workerpool: nil job")
	// ErrQueueFull is returned by TryEnqueue when the pool has no room:
	// Options.MaxQueued jobs wait and every worker is busy.
	ErrQueueFull = errors.New("workerpool: queue is full")
	// ErrBatchTooLarge is returned, queuing nothing, for a batch larger
	// than Workers + Options.MaxQueued: it could never fit.
	ErrBatchTooLarge = errors.New("workerpool: batch larger than Workers + MaxQueued")
	// ErrDropped is wrapped by the *DroppedError that a group's Wait, Map
	// and Shutdown return when accepted jobs were dropped without running:
	// by the group's context ending, Discard or Shutdown.
	ErrDropped = errors.New("workerpool: jobs dropped")
	// ErrGated is wrapped by the error of a group or Map on a gated pool:
	// the gate belongs to the SGen round (enqueue, Start, Join), which a
	// group's own waits would break.
	ErrGated = errors.New("workerpool: groups and Map need an ungated pool")
	// ErrCalledFromJob is returned by a wait that the pool can tell would
	// wait for the very job that calls it: Group.WaitCtx, Join and
	// Shutdown given the context a group's job received.
	ErrCalledFromJob = errors.New("workerpool: wait called from a job it would wait for")
	// ErrNotInitialized is returned by the enqueue methods, Join, Shutdown
	// and Close of a Pool that New did not make — the zero Pool or a nil
	// *Pool — and by Map and a group's Wait on one.
	ErrNotInitialized = errors.New("workerpool: pool not initialized (use workerpool.New)")
)

// PanicError reports a job that panicked. The worker recovered it and went
// on working. It wraps ErrJobPanicked and, when the panic value is an error,
// that error too. A job that called runtime.Goexit is reported the same way,
// with an error value saying so; its worker is replaced.
type PanicError struct {
	Worker int    // the worker that ran the job
	Value  any    // the value passed to panic (an error for Goexit)
	Stack  []byte // the panicking goroutine's stack
}

// Error names the worker and the panic value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("workerpool: job panicked on worker %d: %v", e.Worker, e.Value)
}

// Unwrap returns ErrJobPanicked and, if the panic value is an error, it.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrJobPanicked, err}
	}
	return []error{ErrJobPanicked}
}

// DroppedError reports accepted jobs that were dropped without running. It
// wraps ErrDropped and, when there is one, its Cause.
type DroppedError struct {
	Count int   // jobs dropped
	Cause error // why: the group's context error, or nil for Discard
}

// Error says how many jobs were dropped, and why when the cause is known.
func (e *DroppedError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("workerpool: %d jobs dropped unrun: %v", e.Count, e.Cause)
	}
	return fmt.Sprintf("workerpool: %d jobs dropped unrun", e.Count)
}

// Unwrap returns ErrDropped and the cause, if any.
func (e *DroppedError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrDropped, e.Cause}
	}
	return []error{ErrDropped}
}
