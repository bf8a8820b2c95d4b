package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStressSmall runs the protocol at a tiny scale: both policies,
// interleaved, with accounting checked inside Stress.
func TestStressSmall(t *testing.T) {
	res, err := Stress(context.Background(), StressOptions{
		Writers: 4, PayloadSize: 64, Limit: MinLimit * 4, Duration: 30 * time.Millisecond,
		Iterations: 2, FlushInterval: 5 * time.Millisecond, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	order := []Policy{Lockless, Locked, Locked, Lockless}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for i, run := range res.Runs {
		if run.Policy != order[i] {
			t.Fatalf("run %d is %v, want %v (interleaved, alternating)", i, run.Policy, order[i])
		}
		if run.EventsRead == 0 || run.Duration <= 0 || run.FileBytes <= fileHeaderSize {
			t.Fatalf("run %d: %+v", i, run)
		}
	}
	for _, p := range []Policy{Lockless, Locked} {
		m := res.Metrics(p)
		if m[0].Name != "Events Read" || m[0].Spread.Min <= 0 || m[2].Spread.Max > 100 {
			t.Fatalf("%v metrics %+v", p, m)
		}
	}
}

func TestStressCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	res, err := Stress(ctx, StressOptions{Writers: 2, Iterations: 1, Duration: time.Hour, Dir: dir})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Partial || len(res.Runs) != 0 {
		t.Fatalf("got %+v, %v; want no runs, Partial and context.Canceled", res, err)
	}
	assertEmpty(t, dir)
}

// TestStressCancelWhileWriting cancels a run whose writers would write for
// an hour into a session whose reader, pausing an hour between flushes,
// leaves its buffers full: Stress must stop the writers, drain the
// buffers without writing them out, and return within a generous bound
// (a liveness check, not a measurement). Dir must be empty even mid-run,
// so that a process killed there leaves nothing behind.
func TestStressCancelWhileWriting(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Int64
	var during []os.DirEntry // Dir mid-run: what a killed process would leave
	var listErr error
	time.AfterFunc(300*time.Millisecond, func() {
		during, listErr = os.ReadDir(dir)
		cancelled.Store(time.Now().UnixNano())
		cancel()
	})
	res, err := Stress(ctx, StressOptions{Writers: 4, PayloadSize: 200, Limit: 32 << 20, Duration: time.Hour,
		Iterations: 3, FlushInterval: time.Hour, Dir: dir})
	took := time.Since(time.Unix(0, cancelled.Load()))
	if !errors.Is(err, context.Canceled) || res == nil || !res.Partial || len(res.Runs) != 0 {
		t.Fatalf("got %+v, %v; want no runs, Partial and context.Canceled", res, err)
	}
	if took > 2*time.Second {
		t.Fatalf("Stress returned %v after the cancel", took)
	}
	if listErr != nil || len(during) != 0 {
		t.Fatalf("mid-run, Dir held %v (%v); want nothing: the run's file is unlinked at creation", during, listErr)
	}
	assertEmpty(t, dir)
	t.Logf("%v; returned %v after the cancel", err, took)
}

// TestStressCancelBetweenRuns: a cancel after the first run returns that
// run, marked partial.
func TestStressCancelBetweenRuns(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Stress(ctx, StressOptions{Writers: 2, PayloadSize: 16, Limit: MinLimit * 2, Duration: 10 * time.Millisecond,
		Iterations: 4, FlushInterval: time.Millisecond, Dir: dir, Progress: func(done, total int) { cancel() }})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 1 of 8 runs") {
		t.Fatalf("got %v, want context.Canceled after 1 of 8 runs", err)
	}
	if !res.Partial || len(res.Runs) != 1 || res.Runs[0].EventsRead == 0 || res.Elapsed <= 0 {
		t.Fatalf("result %+v: want the one completed run, marked partial", res)
	}
	assertEmpty(t, dir)
}

// TestStressLeavesNoFiles: during and after a run, Dir holds only what was
// there before: each run's file is unlinked as soon as it is created, and
// files Stress did not create (even ones named like its own) stay.
func TestStressLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	theirs := []string{"notes.txt", "gcbench-trace-stress-1.gctrace"}
	for _, name := range theirs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("keep"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		slices.Sort(names)
		if want := []string{theirs[1], theirs[0]}; !slices.Equal(names, want) {
			t.Errorf("%s: Dir holds %v, want %v", when, names, want)
		}
	}
	_, err := Stress(context.Background(), StressOptions{Writers: 2, PayloadSize: 16, Limit: MinLimit * 2,
		Duration: 10 * time.Millisecond, Iterations: 2, FlushInterval: time.Millisecond, Dir: dir,
		Progress: func(done, total int) { check(fmt.Sprintf("after run %d", done)) }})
	if err != nil {
		t.Fatal(err)
	}
	check("after Stress")
}

// TestTempFileRemovesOnlyItsOwn: a trace file whose path now names another
// file is never removed through that path.
func TestTempFileRemovesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	f, err := createTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.linked {
		t.Fatalf("%s was not unlinked at creation", f.Name())
	}
	// Someone puts their own file at the path (as if the unlink had been
	// impossible and the path reused); close must leave it.
	if err := os.WriteFile(f.Name(), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.linked = true
	if err := f.close(); err == nil || !strings.Contains(err.Error(), "no longer names") {
		t.Fatalf("close: %v, want a refusal to remove", err)
	}
	if data, err := os.ReadFile(f.Name()); err != nil || string(data) != "theirs" {
		t.Fatalf("their file: %q, %v", data, err)
	}
}

// TestCountEventsStopsOnCancel: a read-back stops within ctxCheckEvents
// events of a cancel, long before the end of a large trace.
func TestCountEventsStopsOnCancel(t *testing.T) {
	g := synthetic{size: 64 << 20, writers: 4, perBlock: 1000, payload: 200, event: func(uint64) (Kind, uint64) { return KindStress, 0 }}
	pr, wait := g.stream()
	defer wait()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &cancelAfter{r: pr, n: 1 << 20, cancel: cancel}
	_, _, err := countEvents(ctx, in)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// Read-ahead: the reader's 256 KiB buffer and up to ctxCheckEvents events.
	if limit := int64(1<<20 + 256<<10 + 2*ctxCheckEvents*recordSize(g.payload)); in.read > limit {
		t.Fatalf("read %d bytes after a cancel at 1 MiB, want at most %d", in.read, limit)
	}
}

// cancelAfter reads from r and calls cancel once n bytes have been read.
type cancelAfter struct {
	r      io.Reader
	n      int64
	read   int64
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.read += int64(n); c.read >= c.n {
		c.cancel()
	}
	return n, err
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%s is not empty: %v", dir, entries)
	}
}

func TestStressOptionsValidation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt   StressOptions
		field string
	}{
		{StressOptions{Writers: -1}, "Writers = -1"},
		{StressOptions{Writers: MaxStressWriters + 1}, "Writers"},
		{StressOptions{PayloadSize: -1}, "PayloadSize"},
		{StressOptions{PayloadSize: MaxPayload + 1}, "PayloadSize"},
		{StressOptions{Iterations: -2}, "Iterations"},
		{StressOptions{Iterations: MaxStressIterations + 1}, "Iterations"},
		{StressOptions{Limit: 5}, "Limit"},
		{StressOptions{Policies: []Policy{}}, "Policies"},
		{StressOptions{Policies: []Policy{Locked, 7}}, "Policies[1] = 7"},
		{StressOptions{Policies: []Policy{Locked, Lockless, Locked}}, "Policies[2]"},
		{StressOptions{Duration: -time.Second}, "Duration"},
		{StressOptions{Duration: math.MaxInt64 / 10, Iterations: 10}, "Duration"}, // × 20 runs overflows
		{StressOptions{Memory: 9}, "Memory"},
		{StressOptions{Lock: 9}, "Lock"},
		{StressOptions{FlushInterval: -1}, "FlushInterval"},
		{StressOptions{Dir: filepath.Join(dir, "missing")}, "Dir"},
		{StressOptions{Dir: file}, "Dir"},
	} {
		if c.opt.Dir == "" {
			c.opt.Dir = dir
		}
		res, err := Stress(context.Background(), c.opt)
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.field) || res != nil {
			t.Errorf("Stress(%+v) = %v, %v; want ErrInvalidOptions naming %s", c.opt, res, err, c.field)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("invalid options created files: %v", entries)
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.Min != 2 || s.Max != 9 || s.Mean != 5 || math.Abs(s.StdDev-2) > 1e-12 {
		t.Fatalf("SpreadOf = %+v, want min 2 max 9 mean 5 population stddev 2", s)
	}
}
