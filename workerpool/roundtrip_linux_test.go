package workerpool

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestRoundTripProtocol is issue 30's round-trip measurement, for a quiet
// machine (it is skipped unless GCBENCH_ROUNDTRIP=1): one tiny job
// submitted and waited for — sequential Enqueue + Join — 100,000 times
// after 10,000 untimed ones, on
// the Goroutines backend with Workers = GOMAXPROCS, for every wake policy,
// interleaved with `go f(); wg.Wait()` (rep by rep, every implementation
// once per rep), 5 reps; it logs each one's median time per trip and its
// ratio to the goroutine version's median (target ≤ 0.5 for the best
// policy). Each job checks that it ran on a worker, never inline. After
// the last trip of each pool it measures the process's CPU time over a
// quiet second: idle must cost under 2% of a core (20 ms). It fails only
// on the job running inline or idle CPU over the bound; the ratio is for
// the reader (it depends on the machine).
//
//	GCBENCH_ROUNDTRIP=1 go test -run TestRoundTripProtocol -count 1 -v ./workerpool/
func TestRoundTripProtocol(t *testing.T) {
	if os.Getenv("GCBENCH_ROUNDTRIP") != "1" {
		t.Skip("a measurement for a quiet machine: set GCBENCH_ROUNDTRIP=1")
	}
	const trips, warmup, reps = 100_000, 10_000, 5
	impls := []string{"go-waitgroup"}
	for _, w := range allPolicies {
		impls = append(impls, w.String())
	}
	times := map[string][]time.Duration{}
	idle := map[string]time.Duration{}
	var inline atomic.Int64
	var left atomic.Int64
	job := func(worker int) {
		if worker < 0 {
			inline.Add(1)
		}
		left.Add(-1)
	}
	for rep := range reps {
		for _, impl := range impls {
			if impl == "go-waitgroup" {
				var wg sync.WaitGroup
				f := func() { job(0) }
				trip := func() { wg.Go(f); wg.Wait() }
				times[impl] = append(times[impl], timeTrips(trip, warmup, trips))
				continue
			}
			w, err := ParseWakePolicy(impl)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(Options{Workers: runtime.GOMAXPROCS(0), Wake: w, ExplicitWake: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			trip := func() {
				if err := p.EnqueueFunc(job); err != nil {
					t.Fatal(err)
				}
				if err := p.Join(ctx); err != nil {
					t.Fatal(err)
				}
			}
			times[impl] = append(times[impl], timeTrips(trip, warmup, trips))
			if st := p.Stats(); rep == 0 {
				// Join sleeps are the slow path: each costs a wake through the scheduler.
				t.Logf("%-9s rep 1: %v/trip, %d handoffs, %d Join spins, %d Join sleeps", impl, times[impl][0], st.Handoffs, st.JoinSpins, st.JoinSleeps)
			}
			before := processCPU(t)
			time.Sleep(time.Second)
			idle[impl] = max(idle[impl], processCPU(t)-before)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	median := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	base := median(times["go-waitgroup"])
	for _, impl := range impls {
		m := median(times[impl])
		lo, hi := slices.Min(times[impl]), slices.Max(times[impl])
		line := fmt.Sprintf("%-13s %8v/trip (%v–%v)  %.2f× go-waitgroup", impl, m, lo, hi, float64(m)/float64(base))
		if impl != "go-waitgroup" {
			line += fmt.Sprintf("  idle CPU over a quiet second (worst rep): %v", idle[impl])
			if idle[impl] > 20*time.Millisecond {
				t.Errorf("%s: the idle pool used %v of CPU in a second, want < 20ms", impl, idle[impl])
			}
		}
		t.Log(line)
	}
	if n := inline.Load(); n != 0 {
		t.Errorf("%d jobs ran inline", n)
	}
}

// timeTrips makes warmup untimed trips, then returns the mean time of
// trips timed ones. The warm-up lets a pool's workers, and the goroutine
// version's scheduler state, settle after the quiet second before it (a
// fresh pool's first trips wake sleeping workers).
func timeTrips(trip func(), warmup, trips int) time.Duration {
	for range warmup {
		trip()
	}
	start := time.Now()
	for range trips {
		trip()
	}
	return time.Since(start) / time.Duration(trips)
}

// processCPU returns the CPU time the process has used (user + system).
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
