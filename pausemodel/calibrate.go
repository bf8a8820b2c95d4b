package pausemodel

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

// Calibrate measures Costs with microbenchmarks of workerpool's Threads
// backend on this host: round trips through a one-worker pool
// (WakeToRun), enqueues into gated Broadcast pools of two sizes (the
// caller's CPU per wake call and per thread woken, and the CPU a futile
// wake-up costs the woken workers), and batches (Push, Take). It runs for
// about a second and must not share the machine with other work. The
// caller should run with GOMAXPROCS above the pools' workers, as gcbench
// run does, so that woken threads are not waiting for a P.
func Calibrate(ctx context.Context) (Costs, error) {
	var c Costs
	var err error
	if c.Push, c.Take, err = measureQueue(ctx); err != nil {
		return c, err
	}
	if c.WakeToRun, err = measureWakeToRun(ctx); err != nil {
		return c, err
	}
	small, err := measureHerd(ctx, 1)
	if err != nil {
		return c, err
	}
	large, err := measureHerd(ctx, 8)
	if err != nil {
		return c, err
	}
	c.WakeCall, c.WakePer = solveWakeCosts(small, large, c.Push)
	c.Futile = large.futilePer()
	// A round trip is two wakes: what is left after their calls' cost is
	// the latency.
	c.WakeToRun = max(0, c.WakeToRun-c.WakeCall-c.WakePer)
	return c, nil
}

// nop is the job the microbenchmarks queue.
var nop = jobs.Func(func(int) {})

// threadCPU is the calling thread's CPU time (user + system).
func threadCPU() time.Duration { return rusage(unix.RUSAGE_THREAD) }

// processCPU is the whole process's CPU time.
func processCPU() time.Duration { return rusage(unix.RUSAGE_SELF) }

func rusage(who int) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureWakeToRun halves the median round trip of submitting a job to one
// sleeping Threads worker and waiting for it: two wake-ups, one each way.
func measureWakeToRun(ctx context.Context) (time.Duration, error) {
	p, err := workerpool.New(workerpool.Options{Workers: 1, Backend: workerpool.Threads, Wake: workerpool.Signal})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	const trips = 2000
	rtt := make([]time.Duration, 0, trips)
	for i := range trips {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		t0 := time.Now()
		if err := p.Enqueue(nop); err != nil {
			return 0, err
		}
		if err := p.Join(ctx); err != nil {
			return 0, err
		}
		rtt = append(rtt, time.Since(t0))
		time.Sleep(20 * time.Microsecond) // let the worker fall asleep again
	}
	slices.Sort(rtt)
	return rtt[len(rtt)/2] / 2, nil
}

// herd is what M enqueues into a gated Broadcast pool of W sleeping
// workers cost: the caller's CPU per enqueue, and per enqueue the wake
// calls made and workers woken, and the workers' CPU per futile wake-up.
type herd struct {
	callerPerEnqueue, workersCPU time.Duration
	callsPer, wokenPer           float64
	futile                       uint64
}

func (h herd) futilePer() time.Duration {
	if h.futile == 0 {
		return 0
	}
	return h.workersCPU / time.Duration(h.futile)
}

func measureHerd(ctx context.Context, workers int) (herd, error) {
	runtime.LockOSThread() // so that RUSAGE_THREAD is the enqueuer's alone
	defer runtime.UnlockOSThread()
	p, err := workerpool.New(workerpool.Options{Workers: workers, Backend: workerpool.Threads, Wake: workerpool.Broadcast, Gated: true})
	if err != nil {
		return herd{}, err
	}
	defer p.Close()
	const rounds, perRound = 40, 65
	var h herd
	var enqueues int
	for range rounds {
		if err := ctx.Err(); err != nil {
			return herd{}, err
		}
		time.Sleep(500 * time.Microsecond) // every worker asleep, as between collections
		before, self, proc := p.Stats(), threadCPU(), processCPU()
		for range perRound {
			if err := p.Enqueue(nop); err != nil {
				return herd{}, err
			}
		}
		caller, all, after := threadCPU()-self, processCPU()-proc, p.Stats()
		d := after.Sub(before)
		h.callerPerEnqueue += caller
		h.workersCPU += max(0, all-caller)
		h.callsPer += float64(d.EnqueueWakeCalls)
		h.wokenPer += float64(d.WorkersWoken)
		h.futile += d.FutileWakeups
		enqueues += perRound
		p.Start()
		if err := p.Join(ctx); err != nil {
			return herd{}, err
		}
	}
	h.callerPerEnqueue /= time.Duration(enqueues)
	h.callsPer /= float64(enqueues)
	h.wokenPer /= float64(enqueues)
	return h, nil
}

// solveWakeCosts solves caller = push + call·calls + per·woken for the two
// pool sizes' measurements; a negative solution (noise) is clamped to 0.
func solveWakeCosts(a, b herd, push time.Duration) (call, per time.Duration) {
	ya, yb := float64(a.callerPerEnqueue-push), float64(b.callerPerEnqueue-push)
	det := a.callsPer*b.wokenPer - b.callsPer*a.wokenPer
	if det == 0 {
		if b.callsPer > 0 {
			return time.Duration(max(0, yb/b.callsPer)), 0
		}
		return 0, 0
	}
	c := (ya*b.wokenPer - yb*a.wokenPer) / det
	p := (a.callsPer*yb - b.callsPer*ya) / det
	return time.Duration(max(0, c)), time.Duration(max(0, p))
}

// measureQueue measures Push (the caller's CPU per job of a batch queued
// into a gated pool) and Take (a worker's CPU per job taken and run, for
// jobs that do nothing).
func measureQueue(ctx context.Context) (push, take time.Duration, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := workerpool.New(workerpool.Options{Workers: 1, Backend: workerpool.Threads, Wake: workerpool.Targeted, Gated: true})
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	const n, rounds = 4096, 20
	batch := make([]jobs.Job, n)
	for i := range batch {
		batch[i] = nop
	}
	var callerCPU, workerCPU time.Duration
	for range rounds {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		self := threadCPU()
		if err := p.EnqueueBatch(batch); err != nil {
			return 0, 0, err
		}
		callerCPU += threadCPU() - self
		self, proc := threadCPU(), processCPU()
		p.Start()
		if err := p.Join(ctx); err != nil {
			return 0, 0, err
		}
		workerCPU += max(0, processCPU()-proc-(threadCPU()-self))
	}
	return callerCPU / (n * rounds), workerCPU / (n * rounds), nil
}

// String shows the costs as a calibration line.
func (c Costs) String() string {
	return fmt.Sprintf("wake-to-run %v, wake call %v + %v per thread woken, futile wake-up %v, push %v, take %v",
		c.WakeToRun, c.WakeCall, c.WakePer, c.Futile, c.Push, c.Take)
}
