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
	// exist on this operating system (Threads off Linux).
	ErrUnsupported = errors.New("workerpool: backend not supported on this system")
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
	// ErrNotInitialized is returned by Enqueue, EnqueueFunc, EnqueueBatch,
	// StartBatch, Join and Close of a Pool that New did not make: the zero
	// Pool or a nil *Pool.
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
