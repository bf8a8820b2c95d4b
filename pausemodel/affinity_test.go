package pausemodel

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

func affinityOf(t *testing.T, tid int) unix.CPUSet {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

// TestPinnedPoolPinsAndGivesBack: the caller's thread runs on CPU self
// only and every worker thread on CPU to while the pool lives; done gives
// the caller back every CPU it had.
func TestPinnedPoolPinsAndGivesBack(t *testing.T) {
	cpus, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	self, to := cpus[0], cpus[len(cpus)-1]
	runtime.LockOSThread() // so that the thread checked after done is the one pinnedPool pinned
	defer runtime.UnlockOSThread()
	before := affinityOf(t, 0)
	p, done, err := pinnedPool(workerpool.Options{Workers: 2, Backend: workerpool.Threads}, self, to)
	if err != nil {
		t.Fatal(err)
	}
	if got := affinityOf(t, 0); got.Count() != 1 || !got.IsSet(self) {
		t.Errorf("caller runs on %d CPUs (CPU %d set: %v), want CPU %d only", got.Count(), self, got.IsSet(self), self)
	}
	ids := p.ThreadIDs()
	if len(ids) != 2 {
		t.Fatalf("ThreadIDs = %v, want 2 threads", ids)
	}
	for _, tid := range ids {
		if got := affinityOf(t, tid); got.Count() != 1 || !got.IsSet(to) {
			t.Errorf("worker thread %d runs on %d CPUs, want CPU %d only", tid, got.Count(), to)
		}
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if got := affinityOf(t, 0); got != before {
		t.Errorf("after done the caller runs on %d CPUs, want its %d back", got.Count(), before.Count())
	}
}

// TestThreadsCPUReadsAnotherThreadsClock: the clock id built from a
// worker's thread id is that thread's CPU clock: it grows by about the
// time a job on that worker spins, and not while the worker sleeps.
func TestThreadsCPUReadsAnotherThreadsClock(t *testing.T) {
	p, err := workerpool.New(workerpool.Options{Workers: 1, Backend: workerpool.Threads})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ids := p.ThreadIDs()
	const spin = 20 * time.Millisecond
	before := threadsCPU(ids)
	if before <= 0 {
		t.Fatalf("worker thread %v: CPU clock reads %v", ids, before)
	}
	if err := p.Enqueue(jobs.Func(func(int) {
		for start := threadCPU(); threadCPU()-start < spin; {
		}
	})); err != nil {
		t.Fatal(err)
	}
	if err := p.Join(context.Background()); err != nil {
		t.Fatal(err)
	}
	ran := threadsCPU(ids) - before
	if ran < spin || ran > spin+10*time.Millisecond {
		t.Errorf("the worker's clock grew by %v over a job that spun %v of its CPU", ran, spin)
	}
	time.Sleep(10 * time.Millisecond)
	if idle := threadsCPU(ids) - before - ran; idle > 2*time.Millisecond {
		t.Errorf("the sleeping worker's clock grew by %v", idle)
	}
}
