package gcsim

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/workerpool"
)

// kernelCounts is r's kernel counters that it counted, by key.
func kernelCounts(r *Record) map[string]float64 {
	m := map[string]float64{}
	for _, c := range KernelCounters() {
		if v, ok := c.Value(r); ok {
			m[c.String()] = v
		}
	}
	return m
}

// TestKernelCountersOfANativeBatchCollection: a batch collection at 8
// Native workers classifies every worker wake-up once, by the CPU it woke
// on, and counts the collector's preemptions during Dispatch (Linux);
// with Config.KernelSnapshot the snapshot's four counts are counted and
// add up to at most the workers, without it they are absent.
func TestKernelCountersOfANativeBatchCollection(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the Native backend needs cgo on Linux; TestKernelCountersAbsentOffNative covers the other backends")
	}
	for _, snap := range []bool{false, true} {
		cfg := tinyConfig(3, 4)
		cfg.Verify, cfg.Workers, cfg.Backend, cfg.Mutex, cfg.KernelSnapshot = false, 8, workerpool.Native, workerpool.MutexPI, snap
		s := newSim(t, cfg)
		for _, mode := range []Mode{Batch, PerJob, StartBatch, Batch} {
			require.NoError(t, s.Mutate())
			rec, err := s.Collect(mode)
			require.NoError(t, err)
			got := kernelCounts(&rec)
			what := map[bool]string{false: "without", true: "with"}[snap] + " a snapshot, " + mode.String()

			require.Contains(t, got, "wakeups_on_collector_cpu", what)
			require.Contains(t, got, "wakeups_elsewhere", what)
			assert.Equal(t, float64(rec.Pool.WorkersWoken), got["wakeups_on_collector_cpu"]+got["wakeups_elsewhere"],
				"%s: each wake-up classified once", what)
			require.Contains(t, got, "collector_preemptions", what)
			assert.GreaterOrEqual(t, got["collector_preemptions"], 0.0, what)
			// Whether a woken worker sleeps again before Join returns
			// depends on the scheduler; that the counts are read is what
			// holds (threadReader's own test checks what they count).
			require.Contains(t, got, "worker_sleeps", what)
			require.Contains(t, got, "worker_preemptions", what)
			// The workers ran the jobs, so they had CPU time; whether one
			// waited for a CPU is the scheduler's affair.
			require.Contains(t, got, "worker_cpu_us", what)
			require.Contains(t, got, "worker_wait_us", what)
			assert.Positive(t, got["worker_cpu_us"], what)
			// The collector prepared the cards: it had CPU time too.
			require.Contains(t, got, "collector_cpu_us", what)
			require.Contains(t, got, "other_cpu_us", what)
			assert.Positive(t, got["collector_cpu_us"], what)
			assert.GreaterOrEqual(t, got["other_cpu_us"], 0.0, what)

			atStart := []string{"asleep_on_mutex_at_start", "asleep_on_work_cond_at_start",
				"runnable_on_collector_cpu_at_start", "runnable_elsewhere_at_start"}
			sum := 0.0
			for _, k := range atStart {
				if !snap {
					assert.NotContains(t, got, k, "%s: n/a without a snapshot", what)
					continue
				}
				require.Contains(t, got, k, what)
				sum += got[k]
			}
			assert.LessOrEqual(t, sum, float64(cfg.Workers), "%s: each worker in one count at most", what)
		}
	}
}

// TestKernelCountersAbsentOffNative: the goroutines and threads backends'
// records, and Serial's on every backend, count none of the kernel's
// observables, KernelSnapshot or not: all absent, never 0.
func TestKernelCountersAbsentOffNative(t *testing.T) {
	for _, backend := range testBackends() {
		cfg := tinyConfig(3, 4)
		cfg.Verify, cfg.Workers, cfg.Backend, cfg.KernelSnapshot = false, 2, backend, true
		if backend == workerpool.Native {
			cfg.Mutex = workerpool.MutexPI
		}
		s := newSim(t, cfg)
		for _, mode := range Modes() {
			require.NoError(t, s.Mutate())
			rec, err := s.Collect(mode)
			require.NoError(t, err)
			if backend == workerpool.Native && mode != Serial {
				continue // TestKernelCountersOfANativeBatchCollection
			}
			assert.Empty(t, kernelCounts(&rec), "%v, %v", backend, mode)
		}
	}
	if runtime.GOOS != "linux" {
		var ru rusage
		_, ok := involuntarySwitches(&ru)
		assert.False(t, ok, "only Linux counts a thread's switches")
	}
}
