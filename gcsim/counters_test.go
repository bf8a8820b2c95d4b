package gcsim

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/workerpool"
)

// TestCountersHaveOneKeyAndALabel: every counter has its own key and a
// label, and the key is what a report's JSON holds.
func TestCountersHaveOneKeyAndALabel(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Counters() {
		assert.False(t, seen[c.String()], "key %q twice", c)
		seen[c.String()] = true
		assert.NotEmpty(t, c.Label(), c.String())
		b, err := json.Marshal(c)
		require.NoError(t, err)
		var back Counter
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, c, back)
	}
	assert.Equal(t, "to_first_job_us", CounterToFirstJob.String())
	assert.Equal(t, "pool_futile_wakeups", CounterFutileWakeups.String())
	assert.Equal(t, "Counter(99)", Counter(99).String())
	assert.Empty(t, Counter(99).Label())
	_, err := json.Marshal(Counter(99))
	assert.Error(t, err, "an unnamed counter does not marshal")
}

// TestCounterValues reads each counter from a Record, times in µs, and the
// futex calls as absent when the pool did not count them.
func TestCounterValues(t *testing.T) {
	r := &Record{CardPrep: 3 * time.Microsecond, ToFirstJob: 1500 * time.Nanosecond, Jobs: 65, Imbalance: 1.25,
		MajorGCBefore: true, Pool: workerpool.Stats{FutileWakeups: 7, FutexCalls: 9}}
	for c, want := range map[Counter]float64{CounterCardPrep: 3, CounterToFirstJob: 1.5, CounterJobs: 65,
		CounterImbalance: 1.25, CounterMajorGCBefore: 1, CounterFutileWakeups: 7, CounterFutexCalls: 9} {
		v, ok := c.Value(r)
		assert.True(t, ok, c.String())
		assert.Equal(t, want, v, c.String())
	}
	r.Pool.FutexUncounted = true
	_, ok := CounterFutexCalls.Value(r)
	assert.False(t, ok, "uncounted futex calls are absent")
	for _, c := range Counters() {
		if c != CounterFutexCalls && !slices.Contains(KernelCounters(), c) {
			_, ok := c.Value(r)
			assert.True(t, ok, "every other counter but the kernel's has a value: %v", c)
		}
	}
}

// TestKernelCountersAbsentUnlessCounted: the kernel's observables have
// their exact keys, and each is absent (never 0) in a record that did not
// count it: a zero Record (another backend's, or Serial's), a record whose
// wake-ups were not all classified, one without a snapshot or whose
// snapshot's reads failed.
func TestKernelCountersAbsentUnlessCounted(t *testing.T) {
	var keys []string
	for _, c := range KernelCounters() {
		keys = append(keys, c.String())
	}
	assert.Equal(t, []string{"collector_preemptions", "wakeups_on_collector_cpu", "wakeups_elsewhere",
		"asleep_on_mutex_at_start", "asleep_on_work_cond_at_start",
		"runnable_on_collector_cpu_at_start", "runnable_elsewhere_at_start",
		"worker_preemptions", "worker_sleeps", "worker_cpu_us", "worker_wait_us",
		"collector_cpu_us", "other_cpu_us"}, keys)
	for _, c := range KernelCounters() {
		assert.Contains(t, AnatomyCounters(), c, "the anatomy lists %v", c)
		_, ok := c.Value(&Record{})
		assert.False(t, ok, "%v is absent from a record that did not count it", c)
	}

	k := workerpool.KernelStats{WakeCPUsCounted: true, WakeupsOnWakerCPU: 3, WakeupsElsewhere: 5,
		Snapshots: 1, RunnableOnWakerCPU: 1, RunnableElsewhere: 2, AsleepOnMutex: 4, AsleepOnWorkCond: 0}
	r := &Record{CollectorPreemptions: 2, CollectorPreemptionsCounted: true, Pool: workerpool.Stats{Kernel: k},
		WorkerPreemptions: 6, WorkerSleeps: 7, WorkerSwitchesCounted: true,
		WorkerCPU: 8 * time.Microsecond, WorkerWait: 9 * time.Microsecond, WorkerTimesCounted: true,
		CollectorCPU: 10 * time.Microsecond, OtherCPU: 11 * time.Microsecond, CPUSplitCounted: true}
	want := []float64{2, 3, 5, 4, 0, 1, 2, 6, 7, 8, 9, 10, 11}
	for i, c := range KernelCounters() {
		v, ok := c.Value(r)
		assert.True(t, ok, "%v", c)
		assert.Equal(t, want[i], v, "%v", c)
	}

	unclassified := *r
	unclassified.Pool.Kernel.WakeupsUnclassified = 1
	failed := *r
	failed.Pool.Kernel.SnapshotsFailed = 1
	off := *r
	off.Pool.Kernel.Snapshots = 0
	unswitched := *r
	unswitched.WorkerSwitchesCounted = false
	untimed := *r
	untimed.WorkerTimesCounted = false
	unsplit := *r
	unsplit.CPUSplitCounted = false
	snapshotCounters := KernelCounters()[3:7]
	for name, tc := range map[string]struct {
		r      Record
		absent []Counter
	}{
		"a wake-up unclassified":   {unclassified, []Counter{CounterWakeupsOnCollectorCPU, CounterWakeupsElsewhere}},
		"a snapshot's read failed": {failed, snapshotCounters},
		"no snapshot":              {off, snapshotCounters},
		"no workers' switches":     {unswitched, []Counter{CounterWorkerPreemptions, CounterWorkerSleeps}},
		"no workers' times":        {untimed, []Counter{CounterWorkerCPU, CounterWorkerWait}},
		"no CPU split":             {unsplit, []Counter{CounterCollectorCPU, CounterOtherCPU}},
	} {
		for _, c := range KernelCounters() {
			_, ok := c.Value(&tc.r)
			assert.Equal(t, !slices.Contains(tc.absent, c), ok, "%s: %v", name, c)
		}
	}
}

// TestAnatomyPartsAddUpToThePause: the parts gcsim names are the split of
// Record.Pause that Record documents.
func TestAnatomyPartsAddUpToThePause(t *testing.T) {
	r := &Record{Pause: 100 * time.Microsecond, CardPrep: 10 * time.Microsecond, ToFirstJob: 20 * time.Microsecond,
		JobSpan: 50 * time.Microsecond, JoinLatency: 15 * time.Microsecond, NurseryReset: 5 * time.Microsecond}
	var sum float64
	for _, c := range AnatomyParts() {
		v, ok := c.Value(r)
		require.True(t, ok)
		sum += v
	}
	assert.Equal(t, 100.0, sum)
	for _, c := range AnatomyCounters() {
		assert.NotContains(t, AnatomyParts(), c, "a counter explains the parts; it is not one")
	}
}

// TestScalingCountersArePoolCounts: the scaling table's counters are the
// pool's futile wake-ups and futex calls, in that order.
func TestScalingCountersArePoolCounts(t *testing.T) {
	r := &Record{}
	r.Pool.FutileWakeups, r.Pool.FutexCalls = 3, 7
	var got []float64
	for _, c := range ScalingCounters() {
		v, ok := c.Value(r)
		require.True(t, ok, "%v", c)
		got = append(got, v)
	}
	assert.Equal(t, []float64{3, 7}, got)
}

// TestModeNames: modes print, parse and marshal by name; unknown values
// print as Mode(n) and refuse to marshal.
func TestModeNames(t *testing.T) {
	assert.Equal(t, []Mode{Serial, PerJob, Batch, StartBatch}, Modes())
	parsetest.Names(t, ParseMode, ModeNames(), Modes()...)
	b, err := json.Marshal([]Mode{Serial, StartBatch})
	require.NoError(t, err)
	assert.Equal(t, `["serial","startbatch"]`, string(b))
	assert.Equal(t, "Mode(9)", Mode(9).String())
	_, err = json.Marshal(Mode(9))
	assert.ErrorIs(t, err, ErrInvalidConfig)
	var m Mode
	assert.ErrorIs(t, json.Unmarshal([]byte(`"sideways"`), &m), ErrInvalidConfig)
	require.NoError(t, json.Unmarshal([]byte(`"PerJob"`), &m))
	assert.Equal(t, PerJob, m)
}
