package testwait

import (
	"testing"
	"time"
)

// Recv returns the next value received from ch, or fails the test, naming
// what, if none comes within d (or before the test binary's deadline less
// a margin). Like testing.TB.Fatalf, it must be called from the test's
// goroutine.
func Recv[T any](tb testing.TB, ch <-chan T, d time.Duration, what string) T {
	tb.Helper()
	d = bounded(tb, d)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("testwait: %s did not come within %v", what, d)
		var zero T
		return zero
	}
}

// Do calls f, a wait (a sync.WaitGroup's Wait, a join), on a goroutine of
// its own and fails the test, naming what, if f has not returned within d.
// The goroutine is then left blocked in f: the test has failed, and a leak
// check reports it too.
func Do(tb testing.TB, d time.Duration, what string, f func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	d = bounded(tb, d)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		tb.Fatalf("testwait: %s did not return within %v", what, d)
	}
}
