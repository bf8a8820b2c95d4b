package modelcheck

import (
	"math"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
)

// A reference is a run's own serial collections: what its heap's jobs,
// and the collector's work outside dispatch, cost inline while the run
// was measured. gcsim interleaves a run's modes collection by collection
// in rotating rounds, so the serial ones saw the same host as the perjob
// and batch ones beside them.
//
// The check needs it because this host's speed is not a constant: its
// CPUs' speed wanders, each on its own, enough to put job costs measured
// at another time outside check 3's envelope (docs/predict.md, "The
// host's speed", gives the figures, from docs/cpuspeed and the sweeps). A
// serial collection runs the jobs with no dispatch, so it calibrates the
// jobs, not the pauses checked; it runs on the collector's CPU, so the
// other CPU's speed stays unmeasured.
type reference struct {
	Jobs    time.Duration // the jobs' summed cost per collection
	Outside time.Duration // card preparation and nursery reset per collection
	// RelSE is the standard error of the serial mean pause over the mean:
	// the uncertainty a prediction scaled to this reference inherits.
	RelSE float64
}

// referenceOf reads run's serial mode; ok is false without one, or
// without its job counters.
func referenceOf(run report.Run) (reference, bool) {
	m := run.Mode(gcsim.Serial.String())
	if m == nil || len(m.Pauses) < 2 || m.Summary.Mean <= 0 {
		return reference{}, false
	}
	c := m.CounterMeans
	jobs, okJ := c[gcsim.CounterJobs.String()]
	mean, okM := c[gcsim.CounterJobMean.String()]
	prep, okP := c[gcsim.CounterCardPrep.String()]
	reset, okR := c[gcsim.CounterNurseryReset.String()]
	if !(okJ && okM && okP && okR) || jobs*mean <= 0 || math.IsNaN(jobs*mean+prep+reset) {
		return reference{}, false
	}
	us := func(x float64) time.Duration { return time.Duration(x * float64(time.Microsecond)) }
	return reference{Jobs: us(jobs * mean), Outside: us(prep + reset), RelSE: stats.StandardError(m.Pauses) / m.Summary.Mean}, true
}

// at is w at the reference's cost: its jobs scaled so that their serial
// sum is the reference's, its work outside dispatch the reference's.
func (r reference) at(w pausemodel.Work) pausemodel.Work {
	serial := w.Serial()
	if serial <= 0 {
		return w
	}
	out := w.Scaled(float64(r.Jobs) / float64(serial))
	out.Outside = r.Outside
	return out
}
