package workerpool

import (
	"runtime"
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runtimeGoexit() { runtime.Goexit() }

// TestPanicNilIsAPanicNotAGoexit: under GODEBUG=panicnil=1 recover returns
// nil for panic(nil), as for a Goexit; the pool must still see a panic —
// report it as one, keep its worker, and not start a second goroutine for
// it.
func TestPanicNilIsAPanicNotAGoexit(t *testing.T) {
	t.Setenv("GODEBUG", "panicnil=1")
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			p := newPool(t, Options{Workers: 1, Backend: b})
			require.NoError(t, p.Join(timeoutCtx(t)))
			before := runtime.NumGoroutine()
			require.NoError(t, p.Enqueue(jobs.Func(func(int) { panic(nil) })))
			err := p.Join(timeoutCtx(t))
			var pe *PanicError
			require.ErrorAs(t, err, &pe)
			assert.Nil(t, pe.Value)
			assert.NotErrorIs(t, err, ErrJobGoexit)
			var j countJob
			require.NoError(t, p.Enqueue(&j))
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 1, j.runs.Load())
			assert.Equal(t, before, runtime.NumGoroutine(), "no second worker goroutine")
		})
	}
}
