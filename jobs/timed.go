package jobs

import (
	"time"

	"github.com/gcbench/gcbench/jobs/mpsc"
)

// Completion is the record a worker hands to the coordinating goroutine when
// it finishes a job: which job, which worker ran it, and when. From a round's
// completions the coordinator computes per-job durations and load imbalance
// without any lock on the workers' side.
type Completion struct {
	JobIndex int       // the job's index within its round (Timed.JobIndex)
	Worker   int       // the worker that ran it, or Inline
	Start    time.Time // when Run was called
	End      time.Time // when Run returned
}

// Duration is how long the job ran.
func (c Completion) Duration() time.Duration { return c.End.Sub(c.Start) }

// Timed wraps a job so that each run hands a Completion record to a
// queue: the job's index, the worker, and when it started and ended. The
// record travels in the Timed's own node, so timing a round's jobs
// allocates nothing; the same Timed can run again once the consumer has
// popped its previous record (drain every round before the next). The
// record is pushed even if the job panics, so that a consumer draining a
// known count is never left waiting for it.
type Timed struct {
	Job      Job                    // the job that runs
	JobIndex int                    // the job's index within its round, reported as Completion.JobIndex
	Done     mpsc.Queue[Completion] // where the record goes
	node     mpsc.Node[Completion]
}

// Run runs the wrapped job and pushes its completion record.
func (t *Timed) Run(worker int) {
	start := time.Now()
	defer func() {
		t.node.Value = Completion{JobIndex: t.JobIndex, Worker: worker, Start: start, End: time.Now()}
		t.Done.Push(&t.node)
	}()
	t.Job.Run(worker)
}
