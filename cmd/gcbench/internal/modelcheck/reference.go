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
// The check needs it because this host's speed is not a constant. On the
// 2-core KVM guest a fixed arithmetic loop (docs/cpuspeed) once took 5.93
// to 10.27 ms per round on one CPU and 5.66 to 9.66 ms on the other, not
// in step, and 4.6 to 5.3 ms on both forty minutes later; one sweep
// point's serial mean pause read 3215, 2600 and 2754 µs in three sweeps
// minutes apart. Job costs measured once, at another time, put a
// prediction off by more than check 3's envelope is wide. A serial
// collection runs the jobs with no dispatch, so it calibrates the jobs,
// not the pauses checked; it runs on the collector's CPU, so the other
// CPU's speed stays unmeasured (docs/predict.md, "The host's speed").
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
	if m == nil || m.Summary.N < 2 || m.Summary.Mean <= 0 {
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
	return reference{Jobs: us(jobs * mean), Outside: us(prep + reset), RelSE: standardError(m.Summary) / m.Summary.Mean}, true
}

// standardError is the standard error of a sample's mean.
func standardError(s stats.Summary) float64 {
	if s.N < 2 {
		return 0
	}
	return s.Stdev / math.Sqrt(float64(s.N))
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
