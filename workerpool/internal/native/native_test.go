package native

import (
	"errors"
	"testing"
)

// A snapshot whose reads the kernel refuses (here: no such directory)
// fails whole, with ErrSnapshot and no counts: never zeros that look
// counted.
func TestSnapshotReadFailure(t *testing.T) {
	p, err := New(Config{Workers: 2, Gated: true, ProcTask: "/nonexistent/task", Run: func(uint64, int) {}})
	if !Available {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("New without the native pool: %v, want ErrUnavailable", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	s, err := p.Snapshot()
	if !errors.Is(err, ErrSnapshot) || s != (Snap{}) {
		t.Fatalf("Snapshot = %+v, %v; want zero, ErrSnapshot", s, err)
	}
}

// The real /proc classifies each worker of an idle gated pool at most once.
func TestSnapshotIdlePool(t *testing.T) {
	if !Available {
		t.Skip("no native pool in this build (TestSnapshotReadFailure covers it)")
	}
	p, err := New(Config{Workers: 4, Gated: true, Run: func(uint64, int) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	s, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RunnableOnCallerCPU + s.RunnableElsewhere + s.AsleepOnMutex + s.AsleepOnWorkCond; n > 4 || n < 0 {
		t.Fatalf("Snapshot = %+v: %d workers classified, want 0..4", s, n)
	}
	if _, err := p.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Snapshot(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Snapshot after Close: %v, want ErrClosed", err)
	}
}
