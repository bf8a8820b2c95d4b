package gcsim

import "github.com/gcbench/gcbench/jobs"

// The three kinds of minor-collection job. Each is a pointer type built
// once in New, so handing one to the pool converts a pointer to an
// interface and allocates nothing.

// rootsJob scans the marked cards of the write-barrier roots ("scan wbroots").
type rootsJob struct{ s *Sim }

// blockJob scans the marked cards of one of parts contiguous ranges of the
// major heap's blocks ("scan major remsets"): range number part, computed
// by jobs.Range from the block count snapshotted at card prep.
type blockJob struct {
	s           *Sim
	part, parts int
}

// losJob scans the marked cards of one of parts contiguous ranges of the
// LOS object array ("scan LOS remsets"): range number part.
type losJob struct {
	s           *Sim
	part, parts int
}

func (s *Sim) worker(w int) *workerState { return &s.workers[w+1] }

func (j *rootsJob) Run(w int) {
	ws := j.s.worker(w)
	ws.cards += int64(j.s.heap.ScanRootCards(ws.p))
	ws.p.Drain()
}

func (j *blockJob) Run(w int) {
	ws := j.s.worker(w)
	lo, hi := jobs.Range(j.s.heap.ScanBlocks(), j.parts, j.part)
	ws.cards += int64(j.s.heap.ScanBlockCards(lo, hi, ws.p))
	ws.p.Drain()
}

func (j *losJob) Run(w int) {
	ws := j.s.worker(w)
	lo, hi := jobs.Range(j.s.heap.ScanLOSObjects(), j.parts, j.part)
	ws.cards += int64(j.s.heap.ScanLOSCards(lo, hi, ws.p))
	ws.p.Drain()
}

// JobCount is how many jobs a collection for workers workers is split
// into, as SGen splits it: one roots job, then jobs.SplitCount(workers)
// major-heap and as many LOS jobs (Record.Jobs). It panics where
// jobs.SplitCount does.
func JobCount(workers int) int { return 1 + 2*jobs.SplitCount(workers) }

// buildJobs returns the JobCount(workers) jobs in SGen's enqueue order:
// roots, then major-heap ranges, then LOS ranges.
func (s *Sim) buildJobs() []jobs.Job {
	parts := jobs.SplitCount(s.cfg.Workers)
	out := make([]jobs.Job, 0, JobCount(s.cfg.Workers))
	out = append(out, &rootsJob{s})
	for i := range parts {
		out = append(out, &blockJob{s, i, parts})
	}
	for i := range parts {
		out = append(out, &losJob{s, i, parts})
	}
	return out
}
