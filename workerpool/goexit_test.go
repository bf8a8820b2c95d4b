package workerpool

import (
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runtimeGoexit() { runtime.Goexit() }

// settledGoroutines is runtime.NumGoroutine once it has not changed for
// 100 ms: goroutines of pools that earlier tests closed may still be on
// their way out, and a count taken while they leave says nothing about this
// test's pool. A count that never settles within 5 s is logged and returned
// as it stands.
func settledGoroutines(t *testing.T) int {
	t.Helper()
	const quiet, step = 100 * time.Millisecond, 5 * time.Millisecond
	deadline := time.Now().Add(5 * time.Second)
	n, since := runtime.NumGoroutine(), time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			t.Logf("goroutine count still changing after 5 s; using %d", n)
			return n
		}
		time.Sleep(step)
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
		}
	}
	return n
}

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
			before := settledGoroutines(t)
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
			assert.Equal(t, before, settledGoroutines(t), "no second worker goroutine")
		})
	}
}
