package pausemodel

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// BenchmarkNativeRoundFromSleep is workerpool's BenchmarkNativeSGenRound
// (65 jobs of 29 µs spun in C, 8 gated Native workers, perjob and batch)
// with the rounds apart, as the model runs its collections: every worker
// asleep in its wait and the other cores idle when a round starts, as
// between two collections, which back-to-back rounds are not. futile/op
// is the futile wake-ups per round, to set beside the model's on the
// host's cores:
//
//	go test -run '^$' -bench NativeRoundFromSleep ./pausemodel
//	taskset -c 0 go test -run '^$' -bench NativeRoundFromSleep ./pausemodel
func BenchmarkNativeRoundFromSleep(b *testing.B) {
	if !workerpool.NativeAvailable {
		b.Skip("the Native backend needs cgo on Linux")
	}
	const workers, apart = 8, 5 * time.Millisecond
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers + 1)) // each callback needs a P
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = workerpool.SpinJob(29 * time.Microsecond)
	}
	for _, m := range []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI} {
		for _, dispatch := range []string{"perjob", "batch"} {
			b.Run(fmt.Sprintf("mutex=%v/dispatch=%s", m, dispatch), func(b *testing.B) {
				p, err := workerpool.New(workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: m, Gated: true})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				ctx := context.Background()
				s0 := p.Stats()
				for b.Loop() {
					b.StopTimer()
					time.Sleep(apart)
					b.StartTimer()
					if dispatch == "perjob" {
						for _, j := range batch {
							if err := p.Enqueue(j); err != nil {
								b.Fatal(err)
							}
						}
					} else if err := p.EnqueueBatch(batch); err != nil {
						b.Fatal(err)
					}
					p.Start()
					if err := p.Join(ctx); err != nil {
						b.Fatal(err)
					}
				}
				d := p.Stats().Sub(s0)
				b.ReportMetric(float64(d.FutileWakeups)/float64(b.N), "futile/op")
			})
		}
	}
}

// BenchmarkNativeTwoWorkers is a two-worker collection's shape with no Go
// in its jobs: 17 jobs spun in C for 150 µs each (2550 µs of work, 1275 on
// two CPUs), through 2 gated Native workers in one batch, after the
// collector has spun for 3 ms on its own CPU as gcsim's collector runs the
// mutator between collections. ideal-ratio is a round over 1275 µs,
// wait-µs/op the two workers' time runnable but not running per round
// (their schedstat run_delay), which the model keeps near nothing, and
// collector-µs/op the collector thread's CPU in the round (its thread
// clock): on two CPUs, a round above 1 while the workers wait and the
// collector sleeps is the kernel sharing one CPU between the workers while
// the collector's idles (docs/predict.md):
//
//	go test -run '^$' -bench NativeTwoWorkers ./pausemodel
func BenchmarkNativeTwoWorkers(b *testing.B) {
	if !workerpool.NativeAvailable {
		b.Skip("the Native backend needs cgo on Linux")
	}
	const workers, job, mutator = 2, 150 * time.Microsecond, 3 * time.Millisecond
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers + 1))
	batch := make([]jobs.Job, gcsim.JobCount(workers))
	for i := range batch {
		batch[i] = workerpool.SpinJob(job)
	}
	ideal := time.Duration(len(batch)) * job / workers
	for _, m := range []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI} {
		b.Run(fmt.Sprintf("mutex=%v", m), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			p, err := workerpool.New(workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: m, Gated: true})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			ctx := context.Background()
			tids := p.ThreadIDs()
			var wait, took, collector time.Duration
			for b.Loop() {
				b.StopTimer()
				for t := time.Now(); time.Since(t) < mutator; {
				}
				before := runDelay(b, tids)
				b.StartTimer()
				cpu := threadCPU()
				t := time.Now()
				if err := p.EnqueueBatch(batch); err != nil {
					b.Fatal(err)
				}
				p.Start()
				if err := p.Join(ctx); err != nil {
					b.Fatal(err)
				}
				took += time.Since(t)
				collector += threadCPU() - cpu
				b.StopTimer()
				wait += runDelay(b, tids) - before
				b.StartTimer()
			}
			b.ReportMetric(float64(took)/float64(b.N)/float64(ideal), "ideal-ratio")
			b.ReportMetric(float64(wait)/float64(b.N)/1e3, "wait-µs/op")
			b.ReportMetric(float64(collector)/float64(b.N)/1e3, "collector-µs/op")
		})
	}
}

// runDelay is the threads' schedstat run_delay summed: their time
// runnable on a run queue so far.
func runDelay(b *testing.B, tids []int) time.Duration {
	var sum time.Duration
	for _, tid := range tids {
		s, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
		if err != nil {
			b.Fatalf("no schedstat (CONFIG_SCHED_INFO): %v", err)
		}
		f := strings.Fields(string(s))
		if len(f) < 2 {
			b.Fatalf("schedstat %q", s)
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		sum += time.Duration(ns)
	}
	return sum
}
