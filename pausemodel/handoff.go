package pausemodel

import (
	"context"
	"runtime"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// handOffJob is the CPU each job of measureHandOff's rounds spins for:
// about what a job of the default sweep's heap costs at 8 workers.
const handOffJob = 50 * time.Microsecond

// measureHandOff measures Costs.HandOff for the PI mutex (0 for the
// normal one, which hands nothing off): rounds of
// gcsim.JobCount(herdWorkers) jobs, as many as a collection has for that
// many workers, each spinning for about handOffJob, through gated
// Broadcast pools of herdWorkers workers pinned, with the enqueuer, to
// CPU cpu: one with a PI mutex and one with a normal mutex, round by round
// in turn (their medians are compared). On one CPU every PI hand-off puts
// its new owner on a core another thread was running: the broadcast wakes
// the workers onto the mutex, and each release then gives it to a
// sleeper, so the workers take the jobs in a convoy. The normal mutex's
// round runs the same jobs with barging and no hand-off.
//
// HandOff is the PI rounds' excess over the normal ones, less the excess
// the model itself makes of the same two rounds with c's other costs, per
// hand-off the model makes: the way a wake call's cost is solved for with
// the calls an enqueue made. The two rounds' jobs cost the same, so their
// cost, and how fast this CPU runs them just then, cancels. The jobs are
// synthetic: nothing here is fitted to a collection the model is checked
// against.
func (cal calibration) measureHandOff(ctx context.Context, c Costs, cpu int) (d time.Duration, err error) {
	if cal.mutex != workerpool.MutexPI {
		return 0, nil
	}
	kinds := []workerpool.MutexKind{workerpool.MutexPI, workerpool.MutexNormal}
	var pools [2]*workerpool.Pool
	for i, k := range kinds {
		p, unpin, err := pinnedPool(calibration{mutex: k}.options(herdWorkers, workerpool.Broadcast, true), cpu, cpu)
		if err != nil {
			return 0, err
		}
		defer func() { // the second pool's first: each unpin restores the pinning before it
			if e := unpin(); err == nil {
				err = e
			}
		}()
		pools[i] = p
	}
	spins := spinsFor(handOffJob)
	batch := make([]jobs.Job, gcsim.JobCount(herdWorkers))
	for i := range batch {
		batch[i] = jobs.Func(func(int) { spin(spins) })
	}
	const rounds = 40
	var took [2][]time.Duration
	for r := range rounds {
		for j := range pools {
			i := (r + j) % 2 // alternate which kind goes first
			d, err := handOffRound(ctx, pools[i], batch)
			if err != nil {
				return 0, err
			}
			took[i] = append(took[i], d)
		}
	}
	job := make([]time.Duration, len(batch))
	for i := range job {
		job[i] = handOffJob
	}
	c.HandOff = 0
	var model [2]Result
	for i, k := range kinds {
		if model[i], err = Simulate(c, Shape{Cores: 1, Workers: herdWorkers, Mode: gcsim.Batch, Mutex: k, Jobs: job}); err != nil {
			return 0, err
		}
	}
	if model[0].HandOffs == 0 {
		return 0, nil
	}
	excess := (median(took[0]) - median(took[1])) - (model[0].Dispatch - model[1].Dispatch)
	return max(0, excess/time.Duration(model[0].HandOffs)), nil
}

// handOffRound is one of measureHandOff's rounds on p: after idleGap, the
// time from EnqueueBatch of batch to Join's return.
func handOffRound(ctx context.Context, p *workerpool.Pool, batch []jobs.Job) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	time.Sleep(idleGap)
	t0 := time.Now()
	if err := p.EnqueueBatch(batch); err != nil {
		return 0, err
	}
	p.Start()
	if err := p.Join(ctx); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// spin runs a dependent chain of n multiply-adds: CPU, and almost no
// memory, so that its cost is the same inline and on a worker.
func spin(n int) {
	x := 1.0
	for range n {
		x = x*1.0000001 + 1e-9
	}
	runtime.KeepAlive(x) // a use of the chain's result, so that the loop is not removed
}

// spinsFor is how many of spin's steps take about d on this CPU now.
func spinsFor(d time.Duration) int {
	const probe = 200_000
	t := time.Now()
	spin(probe)
	took := max(time.Since(t), time.Microsecond)
	return max(1, int(float64(probe)*float64(d)/float64(took)))
}
