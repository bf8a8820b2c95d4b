package tracestress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/trace"
)

// TestStressSmall runs the protocol at a tiny scale: both policies,
// interleaved, with accounting checked inside Stress.
func TestStressSmall(t *testing.T) {
	res, err := Compare(context.Background(), Options{
		Writers: 4, PayloadSize: 64, Limit: trace.MinLimit * 4, Duration: 30 * time.Millisecond,
		Iterations: 2, FlushInterval: 5 * time.Millisecond, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	order := []trace.Policy{trace.Lockless, trace.Locked, trace.Locked, trace.Lockless}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for i, run := range res.Runs {
		if run.Policy != order[i] {
			t.Fatalf("run %d is %v, want %v (interleaved, alternating)", i, run.Policy, order[i])
		}
		// The file holds at least every payload it read back.
		if run.EventsRead == 0 || run.Duration <= 0 || run.FileBytes < int64(run.EventsRead)*64 {
			t.Fatalf("run %d: %+v", i, run)
		}
	}
	for _, p := range []trace.Policy{trace.Lockless, trace.Locked} {
		m := res.Metrics(p)
		// Counted while the writers write, a run this short may see no
		// flush end; the file's counts above are never empty.
		if m[0].Name != "Events Read" || m[0].Summary.Min < 0 || m[2].Summary.Max > 100 {
			t.Fatalf("%v metrics %+v", p, m)
		}
	}
}

func TestStressCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	res, err := Compare(ctx, Options{Writers: 2, Iterations: 1, Duration: time.Hour, Dir: dir})
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
	res, err := Compare(ctx, Options{Writers: 4, PayloadSize: 200, Limit: 32 << 20, Duration: time.Hour,
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
	res, err := Compare(ctx, Options{Writers: 2, PayloadSize: 16, Limit: trace.MinLimit * 2, Duration: 10 * time.Millisecond,
		Iterations: 4, FlushInterval: time.Millisecond, Dir: dir, Progress: func(done, total int) { cancel() }})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 1 of 8 runs") {
		t.Fatalf("got %v, want context.Canceled after 1 of 8 runs", err)
	}
	if !res.Partial || len(res.Runs) != 1 || res.Runs[0].EventsRead == 0 || res.Elapsed <= 0 {
		t.Fatalf("result %+v: want the one completed run, marked partial", res)
	}
	assertEmpty(t, dir)
}

// TestStressFailureKeepsTheRunsMarkedPartial: a run that fails for a
// reason other than a cancel (here its directory went away) stops the
// protocol with the runs before it, marked partial as a cancel's are.
func TestStressFailureKeepsTheRunsMarkedPartial(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Compare(context.Background(), Options{Writers: 2, PayloadSize: 16, Limit: trace.MinLimit * 2,
		Duration: 10 * time.Millisecond, Iterations: 4, FlushInterval: time.Millisecond, Dir: dir,
		Progress: func(done, total int) { os.Remove(dir) }})
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the second run's failure", err)
	}
	if res == nil || !res.Partial || len(res.Runs) != 1 {
		t.Fatalf("result %+v: want the one completed run, marked partial", res)
	}
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
	_, err := Compare(context.Background(), Options{Writers: 2, PayloadSize: 16, Limit: trace.MinLimit * 2,
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
	const size, payload = 16 << 20, 200
	data := recordTrace(t, size, payload)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &cancelAfter{r: bytes.NewReader(data), n: 1 << 20, cancel: cancel}
	_, _, err := countEvents(ctx, in)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// Read-ahead: the reader's buffer, the block it is in (a writer's
	// buffer: at most 1 MiB) and up to ctxCheckEvents events (each record
	// is the payload plus a header of less than 64 bytes).
	if limit := int64(1<<20 + 1<<20 + 1<<20 + 2*ctxCheckEvents*(payload+64)); in.read > limit {
		t.Fatalf("read %d bytes of %d after a cancel at 1 MiB, want at most %d", in.read, len(data), limit)
	}
}

// recordTrace records a complete trace of at least size bytes of
// payload-byte events from one writer, with budget enough that none is
// dropped.
func recordTrace(t *testing.T, size, payload int) []byte {
	t.Helper()
	var buf bytes.Buffer
	s, err := trace.NewSession(&buf, trace.Options{Limit: 4 * int64(size), Memory: trace.GoHeap, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.NewWriter()
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, payload)
	for i := range size / payload {
		if !w.Write(trace.KindStress, uint64(i), p) {
			t.Fatalf("event %d dropped", i)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
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
		opt   Options
		field string
	}{
		{Options{Writers: -1}, "Writers = -1"},
		{Options{Writers: MaxWriters + 1}, "Writers"},
		{Options{PayloadSize: -1}, "PayloadSize"},
		{Options{PayloadSize: trace.MaxPayload + 1}, "PayloadSize"},
		{Options{Iterations: -2}, "Iterations"},
		{Options{Iterations: MaxIterations + 1}, "Iterations"},
		{Options{Limit: 5}, "Limit"},
		{Options{Policies: []trace.Policy{}}, "Policies"},
		{Options{Policies: []trace.Policy{trace.Locked, 7}}, "Policies[1] = 7"},
		{Options{Policies: []trace.Policy{trace.Locked, trace.Lockless, trace.Locked}}, "Policies[2]"},
		{Options{Duration: -time.Second}, "Duration"},
		{Options{Duration: math.MaxInt64 / 10, Iterations: 10}, "Duration"}, // × 20 runs overflows
		{Options{WriteCost: -time.Microsecond}, "WriteCost"},
		{Options{WriteCost: 2 * time.Second}, "WriteCost"},
		{Options{Reader: 9}, "Reader"},
		{Options{Memory: 9}, "Memory"},
		{Options{Lock: 9}, "Lock"},
		{Options{FlushInterval: -1}, "FlushInterval"},
		{Options{Dir: filepath.Join(dir, "missing")}, "Dir"},
		{Options{Dir: file}, "Dir"},
	} {
		if c.opt.Dir == "" {
			c.opt.Dir = dir
		}
		res, err := Compare(context.Background(), c.opt)
		if !errors.Is(err, seeds.ErrInvalidOptions) || !strings.Contains(err.Error(), c.field) || res != nil {
			t.Errorf("TraceStress(%+v) = %v, %v; want ErrInvalidOptions naming %s", c.opt, res, err, c.field)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("invalid options created files: %v", entries)
	}
}

// TestTraceStressSummaries: each metric is package stats' summary of the
// per-run values, and the ratios pair the iterations.
func TestTraceStressSummaries(t *testing.T) {
	run := func(p trace.Policy, it int, read uint64, secs float64) Run {
		return Run{Policy: p, Iteration: it, Counted: Count{EventsRead: read, EventsDropped: read / 4,
			Duration: time.Duration(secs * float64(time.Second))}}
	}
	res := &Result{Options: Options{PayloadSize: 100}, Runs: []Run{
		run(trace.Lockless, 0, 400, 1), run(trace.Locked, 0, 100, 1),
		run(trace.Locked, 1, 300, 1), run(trace.Lockless, 1, 600, 2),
	}}
	m := res.Metrics(trace.Lockless)
	want := stats.Summarize([]float64{400, 600})
	if got := m[0].Summary; m[0].Name != "Events Read" || got.N != 2 || got.Min != want.Min || got.Max != want.Max ||
		got.Mean != want.Mean || got.Stdev != want.Stdev || got.Median != want.Median {
		t.Fatalf("Events Read = %+v, want stats.Summarize of 400 and 600", m[0])
	}
	if m[2].Name != "Throughput Efficiency" || m[2].Summary.Min != 80 || m[2].Summary.Max != 80 {
		t.Fatalf("efficiency = %+v, want 80%% in every run", m[2])
	}
	if m[4].Name != "Data Throughput" || m[4].Summary.Mean != 100*(400+300)/2 {
		t.Fatalf("data throughput = %+v, want the mean of 400 and 300 events/s × 100 bytes", m[4])
	}
	r := res.LocklessOverLocked()
	// Means 350 over 200 events/s; paired ratios 4 and 1, median 2.5.
	if r == nil || r.MeanRatio != 350.0/200 || r.MedianRatio != 2.5 {
		t.Fatalf("LocklessOverLocked = %+v, want mean ratio 1.75 and median paired ratio 2.5", r)
	}
	res.Runs = res.Runs[:3]
	if r := res.LocklessOverLocked(); r != nil {
		t.Fatalf("unpaired runs gave %+v, want nil", r)
	}
}

// TestThreadCPUOf: another thread's CPU time, read by its id, grows while
// that thread works and is 0 for no thread.
func TestThreadCPUOf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU clocks by thread id are Linux's")
	}
	tid, done := make(chan int), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- seeds.ThreadID()
		busyFor(20 * time.Millisecond)
		close(done)
	}()
	id := <-tid
	<-done // the thread stays: the goroutine unlocked it, so it returns to the pool, and its clock keeps its count
	if cpu := threadCPUOf(id); cpu < 5*time.Millisecond {
		t.Fatalf("a thread busy for 20 ms used %v of CPU by its clock", cpu)
	}
	if cpu := threadCPUOf(0); cpu != 0 {
		t.Fatalf("no thread: %v", cpu)
	}
}

// TestStressEventPipeProtocol runs the command's EventPipe configuration
// at a tiny scale: the EventPipe reader (sequence points every limit/25.6
// bytes), spin locks, Lockless allocation in the lock and a writer cost,
// with the accounting checked inside Compare. The reader takes the
// manager lock more than the batch reader's twice per flush.
func TestStressEventPipeProtocol(t *testing.T) {
	res, err := Compare(context.Background(), Options{
		Writers: 4, PayloadSize: 64, Limit: trace.MinLimit * 20, Duration: 60 * time.Millisecond, Iterations: 1,
		FlushInterval: 5 * time.Millisecond, Lock: trace.SpinLock, Reader: trace.EventPipeReader, LocklessAllocInLock: true,
		WriteCost: 2 * time.Microsecond, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		st := run.Session
		if st.SequencePoints == 0 || st.ReaderLocks <= 2*st.Flushes || run.EventsRead != st.EventsFlushed {
			t.Fatalf("%v: %+v", run.Policy, st)
		}
	}
}
