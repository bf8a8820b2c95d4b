package gcsim

import (
	"context"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/jobs/mpsc"
)

// completions times every job of a collection and gathers the records.
//
// Every job runs wrapped in a jobs.Timed, built once in New with its node,
// so the worker that ran it pushes a jobs.Completion (job index, worker,
// start, end) onto list without a lock or a Go allocation: two clock reads
// and one atomic swap per job, in every mode alike. After the pause has
// ended (outside the timed interval) the collecting goroutine drains
// exactly one record per job — the pushes precede each job's completion,
// which Join waits for, so the count always arrives — and summarizes them
// into the Record. The nodes are then free to be pushed again by the next
// collection. Every slice is sized in New, so neither the pause nor the
// drain allocates.
//
// Load imbalance is max over workers of their busy time divided by the mean
// busy time of the workers that ran at least one job, where a worker's busy
// time is the sum of the durations of the jobs it ran. 1.0 is an even
// split among the workers that ran jobs — a single worker that ran them
// all included, which JobWorkers = 1 tells apart; W workers of which one
// did all the work while the others ran jobs that took no time approaches
// W. Serial collections run every job on
// one worker (jobs.Inline), so their imbalance is 1 by definition. Time a
// worker spent waking, parking or waiting for the queue lock is not busy
// time: imbalance says how evenly the jobs' own work was split, the pause
// phases say what the dispatch cost.
type completions struct {
	timed    []jobs.Timed                      // timed[i] runs job i and pushes its record onto list
	dispatch []jobs.Job                        // dispatch[i] = &timed[i]: what a pause runs or enqueues
	list     mpsc.List[jobs.Completion]        // where the workers push the records
	records  []jobs.Completion                 // the last collection's records, as drained
	busy     []time.Duration                   // per worker+1: busy time in the last collection
	ran      []int                             // per worker+1: jobs run in the last collection
	visit    func(*mpsc.Node[jobs.Completion]) // take, bound once so that a drain allocates nothing
}

// init wraps every job of js in a jobs.Timed that reports to c.list, and
// sizes the buffers for js and workers pool workers.
func (c *completions) init(js []jobs.Job, workers int) {
	c.timed = make([]jobs.Timed, len(js))
	c.dispatch = make([]jobs.Job, len(js))
	for i, j := range js {
		c.timed[i] = jobs.Timed{Job: j, JobIndex: i, Done: &c.list}
		c.dispatch[i] = &c.timed[i]
	}
	c.records = make([]jobs.Completion, 0, len(js))
	c.busy = make([]time.Duration, workers+1)
	c.ran = make([]int, workers+1)
	c.visit = c.take
}

func (c *completions) take(n *mpsc.Node[jobs.Completion]) {
	c.records = append(c.records, n.Value)
}

// drain collects the records the last pause pushed. After a successful
// pause every job ran and pushed, so exactly one record per job is
// drained; after a failed one only those already pushed are taken (the
// Sim is broken then, and no further pause will reuse the nodes).
func (c *completions) drain(pauseErr error) error {
	c.records = c.records[:0]
	if pauseErr != nil {
		c.list.PopAll(c.visit)
		return nil
	}
	if _, err := c.list.Drain(context.Background(), len(c.timed), c.visit); err != nil {
		return fmt.Errorf("gcsim: collecting job completions: %w", err)
	}
	return nil
}

// Completions returns the per-job completion records of the last
// collection, in the order they were drained (a job's index in Jobs is
// Completion.JobIndex; its worker is jobs.Inline for Serial). The slice is owned
// by the Sim and overwritten by the next Collect.
func (s *Sim) Completions() []jobs.Completion { return s.completions.records }

// summarize fills rec's per-job fields from the records, and the anatomy
// of the pause from its phases: the first job's start and the last job's
// end split the span from card preparation's end to the join's end into
// ToFirstJob, JobSpan and JoinLatency, so the parts add up to the pause
// exactly (all are differences of monotonic clock readings).
func (c *completions) summarize(rec *Record, ph *phases) {
	first, last := c.tally(rec, ph)
	if len(c.records) == 0 || last.Before(first) {
		first, last = ph[1], ph[1] // no job ran: the whole wait is dispatch
	}
	rec.ToFirstJob, rec.JobSpan, rec.JoinLatency = first.Sub(ph[1]), last.Sub(first), ph[3].Sub(last)
	c.imbalance(rec)
}

// tally fills rec's job mean and maximum and each worker's busy time and
// job count, and returns the first job's start and the last job's end
// (ph[3] and ph[1] if no job ran).
func (c *completions) tally(rec *Record, ph *phases) (first, last time.Time) {
	clear(c.busy)
	clear(c.ran)
	var sum time.Duration
	first, last = ph[3], ph[1]
	for _, r := range c.records {
		d := r.Duration()
		sum += d
		if r.Start.Before(first) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
		rec.JobMax = max(rec.JobMax, d)
		if w := r.Worker + 1; w >= 0 && w < len(c.busy) {
			c.busy[w] += d
			c.ran[w]++
		}
	}
	if len(c.records) > 0 {
		rec.JobMean = sum / time.Duration(len(c.records))
	}
	return first, last
}

// imbalance fills rec's JobWorkers and Imbalance from the busy times that
// tally summed.
func (c *completions) imbalance(rec *Record) {
	var busiest, total time.Duration
	for i, n := range c.ran {
		if n > 0 {
			rec.JobWorkers++
			total += c.busy[i]
			busiest = max(busiest, c.busy[i])
		}
	}
	rec.Imbalance = 1
	if total > 0 {
		rec.Imbalance = float64(busiest) * float64(rec.JobWorkers) / float64(total)
	}
}
