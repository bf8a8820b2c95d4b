package gcsim

import (
	"context"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/jobs/mpsc"
)

// Per-job completion records.
//
// Every job of a collection runs wrapped in a jobs.Timed, built once in New
// with its node, so the worker that ran it pushes a jobs.Completion (job
// index, worker, start, end) onto the Sim's MPSC list without a lock or a
// Go allocation: two clock reads and one atomic swap per job, in every mode
// alike. After the pause has ended (outside the timed interval) the
// collecting goroutine drains exactly Jobs records — the pushes precede
// each job's completion, which Join waits for, so the count always
// arrives — and summarizes them into the Record. The nodes are then free to
// be pushed again by the next collection.
//
// Load imbalance is max over workers of their busy time divided by the mean
// busy time of the workers that ran at least one job, where a worker's busy
// time is the sum of the durations of the jobs it ran. 1.0 is a perfectly
// even split; W workers of which one did all the work while the others ran
// jobs that took no time approaches W. Serial collections run every job on
// one worker (jobs.Inline), so their imbalance is 1 by definition. Time a
// worker spent waking, parking or waiting for the queue lock is not busy
// time: imbalance says how evenly the jobs' own work was split, the pause
// phases say what the dispatch cost.

// setupCompletions wraps every job in a jobs.Timed that reports to s.done.
func (s *Sim) setupCompletions() {
	s.timed = make([]jobs.Timed, len(s.jobs))
	s.dispatch = make([]jobs.Job, len(s.jobs))
	for i, j := range s.jobs {
		s.timed[i] = jobs.Timed{Job: j, Index: i, Done: &s.done}
		s.dispatch[i] = &s.timed[i]
	}
	s.completions = make([]jobs.Completion, 0, len(s.jobs))
	s.busy = make([]time.Duration, s.cfg.Workers+1)
	s.ran = make([]int, s.cfg.Workers+1)
	s.visit = s.takeCompletion
}

func (s *Sim) takeCompletion(n *mpsc.Node[jobs.Completion]) {
	s.completions = append(s.completions, n.Value)
}

// drainCompletions collects the records the last pause pushed. After a
// successful pause every job ran and pushed, so exactly len(jobs) records
// are drained; after a failed one only those already pushed are taken (the
// Sim is broken then, and no further pause will reuse the nodes).
func (s *Sim) drainCompletions(pauseErr error) error {
	s.completions = s.completions[:0]
	if pauseErr != nil {
		s.done.PopAll(s.visit)
		return nil
	}
	if _, err := s.done.Drain(context.Background(), len(s.jobs), s.visit); err != nil {
		return fmt.Errorf("gcsim: collecting job completions: %w", err)
	}
	return nil
}

// Completions returns the per-job completion records of the last
// collection, in the order they were drained (a job's index is
// Completion.Job; its worker is jobs.Inline for Serial). The slice is owned
// by the Sim and overwritten by the next Collect.
func (s *Sim) Completions() []jobs.Completion { return s.completions }

// summarizeCompletions fills rec's per-job fields from s.completions, and
// the anatomy of the pause from its phases: the first job's start and the
// last job's end split the span from card preparation's end to the join's
// end into ToFirstJob, JobSpan and JoinLatency, so the parts add up to
// the pause exactly (all are differences of monotonic clock readings).
func (s *Sim) summarizeCompletions(rec *Record, ph *phases) {
	clear(s.busy)
	clear(s.ran)
	var sum time.Duration
	first, last := ph[3], ph[1]
	for _, c := range s.completions {
		d := c.Duration()
		sum += d
		if c.Start.Before(first) {
			first = c.Start
		}
		if c.End.After(last) {
			last = c.End
		}
		rec.JobMax = max(rec.JobMax, d)
		if w := c.Worker + 1; w >= 0 && w < len(s.busy) {
			s.busy[w] += d
			s.ran[w]++
		}
	}
	if len(s.completions) > 0 {
		rec.JobMean = sum / time.Duration(len(s.completions))
	}
	var busiest, total time.Duration
	for i, n := range s.ran {
		if n > 0 {
			rec.JobWorkers++
			total += s.busy[i]
			busiest = max(busiest, s.busy[i])
		}
	}
	if len(s.completions) == 0 || last.Before(first) {
		first, last = ph[1], ph[1] // no job ran: the whole wait is dispatch
	}
	rec.ToFirstJob, rec.JobSpan, rec.JoinLatency = first.Sub(ph[1]), last.Sub(first), ph[3].Sub(last)
	rec.Imbalance = 1
	if total > 0 {
		rec.Imbalance = float64(busiest) * float64(rec.JobWorkers) / float64(total)
	}
}
