package modelcheck

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
)

// SGen's ratios on 8 cores, batch/perjob (mono/mono#20634): TrimMean 10%
// of its pauses, and its averages (1629/2206).
const (
	sgenTrimMean = 0.734
	sgenAverages = 0.738
)

// The many-core grid: costs this host cannot measure for a machine it is
// not, each over the values a many-core server plausibly has.
var (
	gridWakeToRun = []time.Duration{5 * time.Microsecond, 10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond}
	gridWakeIdle  = []time.Duration{0, 2 * time.Microsecond, 6 * time.Microsecond}
)

// narrowRange is the widest range of batch/perjob for which a single
// ratio is printed.
const narrowRange = 0.1

// calibratedFields are the costs taken from the host's calibration (the
// grid sets WakeToRun and WakeIdle), with their names.
var calibratedFields = []struct {
	name string
	of   func(*pausemodel.Costs) *time.Duration
}{
	{"wake call", func(c *pausemodel.Costs) *time.Duration { return &c.WakeCall }},
	{"per thread woken", func(c *pausemodel.Costs) *time.Duration { return &c.WakePer }},
	{"futile wake-up", func(c *pausemodel.Costs) *time.Duration { return &c.Futile }},
	{"enqueue call", func(c *pausemodel.Costs) *time.Duration { return &c.Enqueue }},
	{"push", func(c *pausemodel.Costs) *time.Duration { return &c.Push }},
	{"take", func(c *pausemodel.Costs) *time.Duration { return &c.Take }},
}

// A manyCore is the prediction of one core count and mutex kind at the
// seed's shape (workers = cores) over the grid and the calibration's
// spread.
type manyCore struct {
	Cores   int
	Mutex   workerpool.MutexKind
	Jobs    int
	Ratios  []float64 // batch/perjob of every combination
	Futile  []int     // perjob's futile wake-ups of every combination
	Base    float64   // batch/perjob at the medians, wake-to-run 10 µs, 2 µs per idle CPU
	Decides string    // the cost whose range moves the ratio most
	Swing   float64   // how far it moves it (mean over the other costs' grid)
}

// narrow reports whether the ratio's range is narrower than narrowRange.
func (p manyCore) narrow() bool { return slices.Max(p.Ratios)-slices.Min(p.Ratios) < narrowRange }

// predictManyCore simulates one collection of w's mean jobs at cores
// cores and workers with mutex kind k: at the median costs for every
// combination of the grid's wake-to-run and idle-CPU costs, and, at the
// grid's base point (wake-to-run 10 µs, 2 µs per idle CPU), with each
// calibrated cost at the lowest and at the highest of runs, one at a time.
// (Every calibrated variant at every grid point would take minutes at 64
// cores: a PI herd there is tens of thousands of wake-ups per
// collection.)
func predictManyCore(median pausemodel.Costs, runs []pausemodel.Costs, w pausemodel.Work, cores int, k workerpool.MutexKind) (manyCore, error) {
	p := manyCore{Cores: cores, Mutex: k}
	sim := manyCoreSim{p: &p, w: w, shape: pausemodel.Shape{Cores: cores, Workers: cores, Mutex: k, Jobs: w.Jobs(cores)}}
	p.Jobs = len(sim.shape.Jobs)
	grid, err := sim.grid(median)
	if err != nil {
		return p, err
	}
	p.Base = grid[baseWakeToRun][baseWakeIdle]
	toRun, idle := gridSwings(grid)
	p.consider("wake-to-run", toRun)
	p.consider("waking an idle CPU", idle)
	spread := pausemodel.RangeOf(append([]pausemodel.Costs{median}, runs...))
	base := median.WithWakeToRun(gridWakeToRun[baseWakeToRun])
	base.WakeIdle = gridWakeIdle[baseWakeIdle]
	for _, f := range calibratedFields {
		xs := []float64{p.Base}
		for _, d := range []time.Duration{*f.of(&spread.Lo), *f.of(&spread.Hi)} {
			c := base
			*f.of(&c) = d
			r, err := sim.ratio(c)
			if err != nil {
				return p, err
			}
			xs = append(xs, r)
		}
		p.consider(f.name, swing(xs))
	}
	return p, nil
}

// consider makes the cost called name the one that decides p's ratio if
// its swing s is the widest yet.
func (p *manyCore) consider(name string, s float64) {
	if s > p.Swing || p.Decides == "" {
		p.Decides, p.Swing = name, s
	}
}

// A manyCoreSim simulates collections of one shape for a manyCore,
// recording each one's ratio and futile wake-ups in it.
type manyCoreSim struct {
	p     *manyCore
	w     pausemodel.Work
	shape pausemodel.Shape
}

// ratio is batch/perjob of one collection each at costs c. The parts
// outside dispatch are the same in both modes.
func (m manyCoreSim) ratio(c pausemodel.Costs) (float64, error) {
	s := m.shape
	s.Mode = gcsim.PerJob
	per, err := pausemodel.Simulate(c, s)
	if err != nil {
		return 0, fmt.Errorf("predicting %d cores: %w", s.Cores, err)
	}
	s.Mode = gcsim.Batch
	batch, err := pausemodel.Simulate(c, s)
	if err != nil {
		return 0, fmt.Errorf("predicting %d cores: %w", s.Cores, err)
	}
	r := float64(m.w.Outside+batch.Dispatch) / float64(m.w.Outside+per.Dispatch)
	m.p.Futile, m.p.Ratios = append(m.p.Futile, per.FutileWakeups), append(m.p.Ratios, r)
	return r, nil
}

// grid is the ratio at median with each combination of the grid's costs:
// grid[i][j] at gridWakeToRun[i] and gridWakeIdle[j].
func (m manyCoreSim) grid(median pausemodel.Costs) ([][]float64, error) {
	grid := make([][]float64, len(gridWakeToRun))
	for i, w2r := range gridWakeToRun {
		for _, idle := range gridWakeIdle {
			c := median.WithWakeToRun(w2r) // the measured distribution's shape about w2r
			c.WakeIdle = idle
			r, err := m.ratio(c)
			if err != nil {
				return nil, err
			}
			grid[i] = append(grid[i], r)
		}
	}
	return grid, nil
}

// gridSwings is how far each of the grid's two costs moves the ratio: its
// swing along the cost's axis, the mean over the other cost's values.
func gridSwings(grid [][]float64) (wakeToRun, idle float64) {
	for j := range gridWakeIdle {
		var xs []float64
		for i := range gridWakeToRun {
			xs = append(xs, grid[i][j])
		}
		wakeToRun += swing(xs) / float64(len(gridWakeIdle))
	}
	for i := range gridWakeToRun {
		idle += swing(grid[i]) / float64(len(gridWakeToRun))
	}
	return wakeToRun, idle
}

func swing(xs []float64) float64 { return slices.Max(xs) - slices.Min(xs) }

// predictManyCores is predictManyCore for every core count of cores and
// every mutex kind of pausemodel.MutexKinds, at medians[kind] with
// runs[kind]'s spread, in that order (by core count, then kind). The
// simulations are independent and deterministic, so they run side by
// side: 64 cores under PI take seconds each.
func predictManyCores(medians map[workerpool.MutexKind]pausemodel.Costs, runs map[workerpool.MutexKind][]pausemodel.Costs, w pausemodel.Work, cores []int) ([]manyCore, error) {
	kinds := pausemodel.MutexKinds()
	many := make([]manyCore, len(cores)*len(kinds))
	errs := make([]error, len(many))
	var wg sync.WaitGroup
	for i, c := range cores {
		for j, k := range kinds {
			n := i*len(kinds) + j
			wg.Go(func() { many[n], errs[n] = predictManyCore(medians[k], runs[k], w, c, k) })
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return many, nil
}

// The grid's base point: wake-to-run 10 µs, 2 µs per idle CPU.
const baseWakeToRun, baseWakeIdle = 1, 1

// manyCoreTable prints each prediction's range of batch/perjob, the cost
// that decides it and, where the range is narrower than narrowRange, a
// single ratio beside SGen's.
func manyCoreTable(ps []manyCore, heap string) *render.Table {
	t := &render.Table{Title: fmt.Sprintf("scenarios at the seed's shape (%s, broadcast, workers = cores), not validated on this host: "+
		"batch/perjob over the costs' plausible spread and the cost that decides it", heap)}
	t.Header = [][]string{{"cores", "mutex", "jobs", "batch/perjob range", "decided by", "its swing", "batch/perjob", "SGen (8 cores)",
		"perjob futile wake-ups"}}
	for _, p := range ps {
		single, sgen := "", ""
		if p.narrow() {
			single = render.Float(p.Base, 3)
		}
		if p.Cores == 8 {
			sgen = fmt.Sprintf("%.3f (TrimMean 10%%), %.3f (averages)", sgenTrimMean, sgenAverages)
		}
		fut := make([]float64, len(p.Futile))
		for i, f := range p.Futile {
			fut[i] = float64(f)
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(p.Cores), p.Mutex.String(), strconv.Itoa(p.Jobs), render.Range(stats.SpreadOf(p.Ratios), 3), p.Decides,
			render.Float(p.Swing, 3), single, sgen, render.Range(stats.SpreadOf(fut), 0)})
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Range: one simulated collection of the mean jobs at the calibration's medians for every combination of wake-to-run %v "+
			"(the calibration's measured distribution scaled to each as its median) and the extra cost of waking an idle CPU %v, and, at wake-to-run 10µs and 2µs per idle CPU, with each calibrated cost "+
			"(wake call, per thread woken, futile wake-up, enqueue call, push, take) at the lowest and the highest of the calibration runs, "+
			"one at a time.", gridWakeToRun, gridWakeIdle),
		"Decided by: the cost whose own range moves batch/perjob most (for the grid's two, the mean over the other's values). "+
			fmt.Sprintf("batch/perjob: printed only where the range is narrower than %.1f (at the medians, wake-to-run 10µs, 2µs per idle CPU).", narrowRange),
		"SGen: its change's 8-core figures (mono/mono#20634); its heap and jobs are not this simulator's, so compare ratios, not microseconds.",
		"Not validated on this host: these core counts are scenarios of the model under its own kernel rules (preemption on every wake, "+
			"the kernel's placement, newly-idle balance), which the checks above test only on this host's cores; read the range and the cost that decides it, "+
			"not a forecast.")
	return t
}

// factsTable gives, for each core count (workers = cores), what the
// native pool does whatever the timing: the work condition's
// broadcasts, the mutex acquisitions, and bounds on the futile wake-ups
// per collection, for each mode.
func factsTable(cores []int) *render.Table {
	t := &render.Table{Title: "timing-free facts per collection (workers = cores; J jobs)"}
	t.Header = [][]string{{"cores", "J", "mode", "work broadcasts", "collector's lock acquisitions", "workers' lock acquisitions", "futile wake-ups"}}
	for _, c := range cores {
		j := gcsim.JobCount(c)
		w := c
		rows := [][]string{
			{"perjob", strconv.Itoa(j + 1), fmt.Sprintf("%d + 1 per Join wake-up", j+2), fmt.Sprintf("%d + 1 per wake-up", j), fmt.Sprintf("0 to %d", w*(j+1))},
			{"batch", "2", "3 + 1 per Join wake-up", fmt.Sprintf("%d + 1 per wake-up", j), fmt.Sprintf("0 to %d", 2*w)},
			{"startbatch", "1", "2 + 1 per Join wake-up", fmt.Sprintf("%d + 1 per wake-up", j), fmt.Sprintf("0 to %d", w)},
		}
		for _, r := range rows {
			t.Rows = append(t.Rows, append([]string{strconv.Itoa(c), strconv.Itoa(j)}, r...))
		}
	}
	t.Notes = append(t.Notes, "Work broadcasts: pthread_cond_broadcast of the work condition, one per enqueue call and one at Start "+
		"(StartBatch: one, after the unlock); glibc makes a futex call only when a waiter is left to signal. Lock acquisitions: an enqueue call, "+
		"Start and Join take the mutex once each, a worker once per job (one hold retires it and looks for the next, as SGen's thread_func) "+
		"and once per return from its wait. "+
		"Futile wake-ups: each broadcast wakes each waiting worker at most once, so at most workers × broadcasts; none if every worker "+
		"reaches the mutex after the gate opens with a job left (the workers woken while the gate is closed are SGen's herd).")
	return t
}
