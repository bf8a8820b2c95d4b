package gcsim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

// TestCompletionRecordsEveryJobOnce: each collection, in every mode and on
// both backends, yields exactly one completion record per job, from a
// worker of the pool (or jobs.Inline for Serial), and summaries consistent
// with them. Several collections in a row reuse the preallocated nodes.
func TestCompletionRecordsEveryJobOnce(t *testing.T) {
	for _, backend := range testBackends() {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", backend, workers), func(t *testing.T) {
				cfg := tinyConfig(11, 4)
				cfg.Verify, cfg.Backend, cfg.Workers = false, backend, workers
				s := newSim(t, cfg)
				for i := range 9 {
					mode := Modes()[i%len(Modes())]
					require.NoError(t, s.Mutate())
					rec, err := s.Collect(mode)
					require.NoError(t, err)
					checkCompletions(t, s, rec, workers)
				}
			})
		}
	}
}

func checkCompletions(t *testing.T, s *Sim, rec Record, workers int) {
	t.Helper()
	cs := s.Completions()
	require.Len(t, cs, rec.Jobs, "%s: one record per job", rec.Mode)
	seen := make([]int, rec.Jobs)
	used := map[int]bool{}
	var sum, longest time.Duration
	for _, c := range cs {
		require.True(t, c.JobIndex >= 0 && c.JobIndex < rec.Jobs, "%s: job index %d", rec.Mode, c.JobIndex)
		seen[c.JobIndex]++
		if rec.Mode == Serial {
			assert.Equal(t, jobs.Inline, c.Worker, "serial jobs run inline")
		} else {
			assert.True(t, c.Worker >= 0 && c.Worker < workers, "%s: worker %d of %d", rec.Mode, c.Worker, workers)
		}
		assert.False(t, c.End.Before(c.Start), "%s: job %d ends before it starts", rec.Mode, c.JobIndex)
		used[c.Worker] = true
		sum += c.Duration()
		longest = max(longest, c.Duration())
	}
	for j, n := range seen {
		assert.Equal(t, 1, n, "%s: job %d recorded %d times", rec.Mode, j, n)
	}
	assert.Equal(t, longest, rec.JobMax, rec.Mode)
	assert.Equal(t, sum/time.Duration(len(cs)), rec.JobMean, rec.Mode)
	assert.Positive(t, rec.JobMax, rec.Mode)
	assert.Equal(t, len(used), rec.JobWorkers, rec.Mode)
	assert.GreaterOrEqual(t, rec.Imbalance, 1.0, rec.Mode)
	assert.LessOrEqual(t, rec.Imbalance, float64(rec.JobWorkers)+1e-9, "%s: max/mean ≤ number of workers", rec.Mode)
	if rec.Mode == Serial {
		assert.Equal(t, 1, rec.JobWorkers)
		assert.Equal(t, 1.0, rec.Imbalance)
	}
}

// TestImbalanceDefinition checks the summary against hand-made records:
// workers 0 and 1 busy 30 and 10 µs → max 30 / mean 20 = 1.5; worker 2 ran
// nothing and does not count.
func TestImbalanceDefinition(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.Workers = 3
	s := newSim(t, cfg)
	t0 := time.Now()
	at := func(job, worker int, from, to time.Duration) jobs.Completion {
		return jobs.Completion{JobIndex: job, Worker: worker, Start: t0.Add(from), End: t0.Add(to)}
	}
	s.completions.records = append(s.completions.records[:0],
		at(0, 0, 0, 20*time.Microsecond), at(1, 1, 0, 10*time.Microsecond), at(2, 0, 20*time.Microsecond, 30*time.Microsecond))
	var rec Record
	ph := phases{t0.Add(-5 * time.Microsecond), t0.Add(-2 * time.Microsecond), t0, t0.Add(33 * time.Microsecond), t0.Add(34 * time.Microsecond)}
	s.completions.summarize(&rec, &ph)
	assert.Equal(t, 2*time.Microsecond, rec.ToFirstJob, "card preparation's end to the first job's start")
	assert.Equal(t, 30*time.Microsecond, rec.JobSpan, "the first job's start to the last job's end")
	assert.Equal(t, 3*time.Microsecond, rec.JoinLatency, "the last job's end to Join's return")
	assert.Equal(t, 2, rec.JobWorkers)
	assert.InDelta(t, 1.5, rec.Imbalance, 1e-12)
	assert.Equal(t, 20*time.Microsecond, rec.JobMax)
	assert.Equal(t, 40*time.Microsecond/3, rec.JobMean)

	s.completions.records = append(s.completions.records[:0], at(0, jobs.Inline, 0, 0), at(1, jobs.Inline, 0, 0))
	rec = Record{}
	s.completions.summarize(&rec, &ph)
	assert.Equal(t, 1, rec.JobWorkers)
	assert.Equal(t, 1.0, rec.Imbalance, "zero busy time is even, not NaN")
}

// TestAnatomyAddsUpToThePause: every collection's parts, in every mode,
// add up to its pause exactly, and each is non-negative.
func TestAnatomyAddsUpToThePause(t *testing.T) {
	for _, backend := range testBackends() {
		cfg := tinyConfig(7, 32)
		cfg.Backend, cfg.Verify = backend, false
		s := newSim(t, cfg)
		for i := 0; i < 6; i++ {
			for _, mode := range Modes() {
				if err := s.Mutate(); err != nil {
					t.Fatal(err)
				}
				r, err := s.Collect(mode)
				if err != nil {
					t.Fatal(err)
				}
				parts := []time.Duration{r.CardPrep, r.ToFirstJob, r.JobSpan, r.JoinLatency, r.NurseryReset}
				var sum time.Duration
				for _, p := range parts {
					if p < 0 {
						t.Fatalf("%v %v: a negative part in %v", backend, mode, parts)
					}
					sum += p
				}
				if sum != r.Pause {
					t.Fatalf("%v %v: parts %v add up to %v, the pause is %v", backend, mode, parts, sum, r.Pause)
				}
				if r.JobSpan < r.JobMax {
					t.Errorf("%v %v: the job span %v is shorter than the longest job %v", backend, mode, r.JobSpan, r.JobMax)
				}
			}
		}
	}
}
