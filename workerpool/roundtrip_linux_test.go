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

	"golang.org/x/sys/unix"
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
		times["cache line"] = append(times["cache line"], cacheLineTrip(t, trips))
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
			p, err := New(Options{Workers: runtime.GOMAXPROCS(0), Wake: w})
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
	cl := times["cache line"]
	t.Logf("%-13s %8v/trip (%v–%v)  one cache line bounced between two CPUs, the floor of a cross-CPU handoff", "cache line", median(cl), slices.Min(cl), slices.Max(cl))
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

// cacheLineTrip returns the mean round trip of one cache line bounced
// between two threads pinned to the first two CPUs this process may use:
// what the hardware (on a VM, the host's placement of its virtual CPUs)
// charges any cross-CPU handoff, which a Spin round trip makes twice and
// `go f(); wg.Wait()` need not make at all. On the 2-core reference VM it
// moved between about 170 ns and 1 µs from one run to the next.
func cacheLineTrip(t *testing.T, trips int) time.Duration {
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil {
		t.Fatal(err)
	}
	var two []int
	for c := 0; len(two) < 2 && c < 1024; c++ {
		if cpus.IsSet(c) {
			two = append(two, c)
		}
	}
	if len(two) < 2 {
		t.Fatal("the round-trip protocol needs two CPUs")
	}
	var ping, pong struct {
		v atomic.Int64
		_ [56]byte // each on a line of its own
	}
	pinned := func(cpu int) {
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			t.Error(err)
		}
	}
	// Both sides run on goroutines that exit still locked to their
	// threads, so that the runtime ends the threads whose affinity this
	// changed instead of reusing them.
	done := make(chan struct{})
	go func() {
		defer close(done)
		pinned(two[1])
		for i := int64(1); i <= int64(trips); i++ {
			for ping.v.Load() != i {
			}
			pong.v.Store(i)
		}
	}()
	took := make(chan time.Duration)
	go func() {
		pinned(two[0])
		start := time.Now()
		for i := int64(1); i <= int64(trips); i++ {
			ping.v.Store(i)
			for pong.v.Load() != i {
			}
		}
		took <- time.Since(start) / time.Duration(trips)
	}()
	d := <-took
	<-done
	return d
}

// processCPU returns the CPU time the process has used (user + system).
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
