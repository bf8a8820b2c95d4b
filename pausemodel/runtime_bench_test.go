package pausemodel

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
	"golang.org/x/sys/unix"
)

// BenchmarkNativeGoRuntime measures what the Go runtime's own threads
// take from a collection whose jobs are callbacks into Go, as gcsim's are:
// 65 jobs spinning 15 µs in Go through 8 gated Native workers in one
// batch, after the collector has spun for 2 ms as gcsim's collector runs
// the mutator between collections, with GOMAXPROCS at workers + 1 (as
// gcbench sets it) and at workers + 17 (Ps to spare). Run it with the
// whole process on one CPU, as check 4's sweeps run, where every thread
// the runtime runs takes that CPU from the round:
//
//	taskset -c 0 go test -run '^$' -bench NativeGoRuntime ./pausemodel
//
// others-µs/op is the CPU per round of the process's threads other than
// the collector and the workers (their schedstat), and sysmon-µs/op and
// sysmon-runs/op the CPU and the times run of sysmon's among them: the
// runtime starts sysmon's thread before any other (runtime.main's first
// newm), so it is the process's second thread; the benchmark logs its
// wait channel (hrtimer_nanosleep: its usleep between two looks).
// docs/predict.md reads the runtime's execution trace of the same rounds
// (go test -trace) for why a PI convoy keeps sysmon at its shortest
// sleep.
func BenchmarkNativeGoRuntime(b *testing.B) {
	if !workerpool.NativeAvailable {
		b.Skip("the Native backend needs cgo on Linux")
	}
	const workers, job, mutator = 8, 15 * time.Microsecond, 2 * time.Millisecond
	spins := spinsFor(job)
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = jobs.Func(func(int) { spin(spins) })
	}
	for _, m := range []workerpool.MutexKind{workerpool.MutexNormal, workerpool.MutexPI} {
		for _, procs := range []int{workers + 1, workers + 17} {
			b.Run(fmt.Sprintf("mutex=%v/procs=%d", m, procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				p, err := workerpool.New(workerpool.Options{Workers: workers, Backend: workerpool.Native, Mutex: m, Gated: true})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				ours := map[int]bool{unix.Gettid(): true}
				for _, tid := range p.ThreadIDs() {
					ours[tid] = true
				}
				sysmon, err := sysmonThread()
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				var others, sysmonCPU time.Duration
				var sysmonRuns int64
				for b.Loop() {
					b.StopTimer()
					for t := time.Now(); time.Since(t) < mutator; {
					}
					before := stats(b)
					b.StartTimer()
					if err := p.EnqueueBatch(batch); err != nil {
						b.Fatal(err)
					}
					p.Start()
					if err := p.Join(ctx); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					spent, sys := runtimeSpent(before, stats(b), ours, sysmon)
					others, sysmonCPU, sysmonRuns = others+spent, sysmonCPU+sys.cpu, sysmonRuns+sys.runs
					b.StartTimer()
				}
				b.ReportMetric(float64(others)/float64(b.N)/1e3, "others-µs/op")
				b.ReportMetric(float64(sysmonCPU)/float64(b.N)/1e3, "sysmon-µs/op")
				b.ReportMetric(float64(sysmonRuns)/float64(b.N), "sysmon-runs/op")
				wchan, _ := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/wchan", sysmon))
				b.Logf("sysmon's thread, %d, waits in %q", sysmon, wchan)
			})
		}
	}
}

// stats is threadStats, or the benchmark's end.
func stats(b *testing.B) map[int]threadStat {
	s, err := threadStats()
	if err != nil {
		b.Fatal(err)
	}
	return s
}
