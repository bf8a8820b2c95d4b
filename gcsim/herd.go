package gcsim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

// ErrHerdTooLarge is wrapped, beside setting.ErrInvalid, by CheckHerd's
// error: a pool so large for the machine that one collection's futile
// wake-ups would take minutes, and a stop would wait for them.
var ErrHerdTooLarge = errors.New("the wake-up herd is too large for this machine")

// DefaultHerdLimit is the futile wake-ups per CPU per collection that a
// front end allows by default (CheckHerd): at the few microseconds a
// kernel wake-up and its context switch cost, about a second or more of
// every collection. 256 workers broadcasting per job on 2 CPUs make a
// quarter of it; 4096 on 2 CPUs make 64 times it.
const DefaultHerdLimit = 1 << 20

// Herd is the most futile wake-ups one collection of e can cause: under
// the Broadcast policy every enqueue and Start wakes every worker while
// the gate is closed, so a PerJob collection wakes the pool once per job
// and once more at Start, Workers × (jobs + 1), Batch twice, StartBatch
// once. The other policies wake at most one worker per job (Signal) or
// none behind the gate (Targeted, Spin), and Serial none: their herd is 0.
func (e Experiment) Herd() int64 {
	if e.Config.Wake != workerpool.Broadcast {
		return 0
	}
	return herd(e.Config.Workers, e.Modes)
}

func herd(workers int, modes []Mode) int64 {
	var broadcasts int64
	for _, m := range modes {
		switch m {
		case PerJob:
			broadcasts = max(broadcasts, int64(JobCount(workers))+1)
		case Batch:
			broadcasts = max(broadcasts, 2)
		case StartBatch:
			broadcasts = max(broadcasts, 1)
		}
	}
	return int64(workers) * broadcasts
}

// CheckHerd refuses an experiment whose Herd exceeds limit futile
// wake-ups per CPU on a machine of cpus CPUs: a *setting.Error about the
// workers, wrapping ErrHerdTooLarge, that says how many workers would fit.
// A limit ≤ 0 allows any herd. Like heap.Config.CheckMemory it is the
// machine's limit, not the experiment's: a front end applies it before the
// run, with a way to raise it.
func (e Experiment) CheckHerd(limit int64, cpus int) error {
	cpus = max(cpus, 1)
	if limit <= 0 || limit > math.MaxInt64/int64(cpus) { // none, or more than any herd
		return nil
	}
	n, budget := e.Herd(), limit*int64(cpus)
	if n <= budget {
		return nil
	}
	fit := sort.Search(e.Config.Workers, func(w int) bool { return herd(w+1, e.Modes) > budget }) // workers 1..fit fit
	mode := Batch
	if slices.Contains(e.Modes, PerJob) {
		mode = PerJob
	}
	return &setting.Error{Field: KeyWorkers, Value: fmt.Sprint(e.Config.Workers), Err: ErrHerdTooLarge,
		Want: fmt.Sprintf("at most %d on %d CPUs with wake broadcast and mode %v (one collection would wake the workers "+
			"up to %d times in vain, %d per CPU, over the limit of %d per CPU)", fit, cpus, mode, n, n/int64(cpus), limit)}
}
