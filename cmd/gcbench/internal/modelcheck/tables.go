package modelcheck

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/bytesize"
)

// Tables checks the model against reports with cal (with its medians, and
// again with each calibration run's own costs) and predicts at each core
// count of cores, with workers = cores, for the jobs of heap's
// collections. It returns the four checks' verdict lines, in order, each
// "check N (…): … PASSED" or "… MISSED" (docs/predict.md says what each
// checks), and every table of a check, in the order a reader takes them —
// the check point by point, the check by part of the pause and by the
// workers' time (where the runs counted it), the Go
// backends beside it if reports have points of them, the many-core
// scenarios and the timing-free facts. measure gives a heap's job
// costs; Tables calls each of its functions once per heap (and worker
// count).
func Tables(cal Calibration, reports []*report.Report, measure Measure, heap gcsim.Config,
	cores []int) (verdictLines []string, _ []*render.Table, _ error) {
	work := memo(measure.Work)
	slow := memoSlowdown(measure.Slowdown)
	vals, err := validatePoints(cal.medians, reports, work, slow)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range verdicts(vals) {
		verdictLines = append(verdictLines, l.String())
	}
	runErrors, err := calibrationRunErrors(cal.runs, reports, work, slow)
	if err != nil {
		return nil, nil, err
	}
	tables := []*render.Table{validationTable(vals, runErrors), partsTable(vals)}
	if t := workerTimesTable(vals); t != nil {
		tables = append(tables, t)
	}
	if gos := goPoints(reports); len(gos) > 0 {
		tables = append(tables, goRuntimeTable(gos, vals))
	}
	label := bytesize.Format(heap.MajorHeap) + " + " + bytesize.Format(heap.LOS)
	w, err := work(heap)
	if err != nil {
		return nil, nil, fmt.Errorf("measuring job costs at %s: %w", label, err)
	}
	many, err := predictManyCores(cal.medians, cal.runs, w, cores)
	if err != nil {
		return nil, nil, err
	}
	return verdictLines, append(tables, manyCoreTable(many, label), factsTable(cores)), nil
}

// validationTable is the check: each native point's measured and
// predicted perjob − batch, ratio and futile wake-ups, with the verdict
// against goal plus the measurement floor. runErrors, if any, are the
// relative errors of the same check with each calibration run's own costs.
func validationTable(vals []validation, runErrors []float64) *render.Table {
	t := &render.Table{Title: "model check against the native backend: measured vs predicted mean pause (µs), perjob − batch"}
	t.Header = [][]string{{"mutex", "workers", "cores", "perjob", "batch", "perjob−batch", "batch/perjob",
		"predicted perjob", "predicted batch", "predicted perjob−batch", "predicted batch/perjob", "error",
		"perjob envelope", "batch envelope", "inside",
		"futile wake-ups", "predicted futile", "futile ok", "futile given observables"}}
	ranges := futileRanges(vals)
	for _, v := range vals {
		r := ranges[key(v)]
		ok := "yes"
		if !futileOK(v.PredictedFutile, v.MeasuredFutile, r[0], r[1]) {
			ok = "NO"
		}
		t.Rows = append(t.Rows, []string{v.Mutex.String(), strconv.Itoa(v.workers()), strconv.Itoa(v.Cores),
			render.Float(v.MeasuredPerJob, 0), render.Float(v.MeasuredBatch, 0), render.Float(v.measuredDiff(), 0), render.Float(v.MeasuredBatch/v.MeasuredPerJob, 3),
			render.Float(v.PredictedPerJob, 0), render.Float(v.PredictedBatch, 0), render.Float(v.predictedDiff(), 0), render.Float(v.PredictedBatch/v.PredictedPerJob, 3),
			render.Float(v.predictedDiff()-v.measuredDiff(), 0),
			envelope(v.PerJobLow, v.PerJobHigh), envelope(v.BatchLow, v.BatchHigh), insideLabel(v),
			render.Float(v.MeasuredFutile, 1), strconv.Itoa(v.PredictedFutile), ok, observedFutile(v)})
	}
	j := judge(vals)
	verdict := "met"
	if !j.Met {
		verdict = "MISSED"
	}
	t.Notes = append(t.Notes, "Each point's error is its predicted perjob−batch minus the measured; futile ok says whether its "+
		"predicted futile wake-ups (the model's own kernel rules) are within the target below. An envelope is check 3's: "+
		"the lowest and the highest of the model's mean pauses under each extreme of three choices (no wake-up preemption or "+
		"preemption on every wake; an idle core takes a queued thread at once or at the next tick; the Go runtime's sysmon "+
		"asleep or looking at its shortest sleep), and inside says which of the point's "+
		"two means check 3 counts inside (both, perjob, batch or neither); futile given observables "+
		"is check 2's prediction, with the run's measured preemptions and placement fed in (n/a where the run has none).")
	t.Notes = append(t.Notes, fmt.Sprintf("Mean absolute error of perjob−batch: %.0f µs, %.0f%% of the mean measured difference "+
		"(goal ≤ %.0f%% + the measurement floor %.0f%%: %s). Measured: each point's Avg; predicted: pausemodel.Predict, "+
		"calibrated from this host's native primitives with the point's mutex kind.", j.MAE, j.Rel, goal, j.Floor.Rel, verdict))
	if j.Floor.Points == 0 {
		t.Notes = append(t.Notes, "Measurement floor: none (no point was measured twice; give a repeated sweep of the grid as another --dir).")
	} else {
		t.Notes = append(t.Notes, floorNote(vals, j.Floor))
	}
	hits, all := futileHits(vals)
	t.Notes = append(t.Notes, fmt.Sprintf("Futile wake-ups per perjob collection, with the model's own kernel rules: %d of %d points "+
		"within ±%.0f%% of the measured mean or within its run-to-run range (the points marked yes under futile ok; "+
		"check 2 feeds in the kernel's measured observables instead).", hits, all, futileTolerance))
	if note := ceilingNote(vals); note != "" {
		t.Notes = append(t.Notes, note)
	}
	if note := errorBreakdown(vals); note != "" {
		t.Notes = append(t.Notes, note)
	}
	if len(runErrors) > 0 {
		errs := make([]string, len(runErrors))
		for i, e := range runErrors {
			errs[i] = fmt.Sprintf("%.0f%%", e)
		}
		t.Notes = append(t.Notes, "With each calibration run's own costs instead of their medians: "+strings.Join(errs, ", ")+".")
	}
	return t
}

func floorNote(vals []validation, f floor) string {
	perCores := ""
	if cores := coreCounts(vals); len(cores) > 1 {
		var parts []string
		for _, c := range cores {
			if g := measurementFloor(where(vals, func(v validation) bool { return v.Cores == c })); g.Points > 0 {
				parts = append(parts, fmt.Sprintf("%s %.0f%%", coresLabel(c), g.Rel))
			}
		}
		perCores = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("Measurement floor: %d points measured %d times in all; each measurement's perjob−batch differs from its point's mean "+
		"by %.0f µs on average, %.0f%%%s of the mean measured difference: the error a model that predicted every point's mean exactly "+
		"would show against these sweeps.", f.Points, f.Replicas, f.MAE, f.Rel, perCores)
}

// partsTable says where the check's error lies: for each core count and
// mutex kind, the perjob − batch difference of each part of the
// dispatch, measured (the anatomy's means) and predicted, averaged over
// its points.
func partsTable(vals []validation) *render.Table {
	t := &render.Table{Title: "model check by part of the pause: perjob − batch (µs, mean over the points)"}
	header := []string{"cores", "mutex", "points", "error"}
	for _, p := range pauseParts {
		header = append(header, p.Label, "predicted "+p.Label)
	}
	t.Header = [][]string{header}
	for _, c := range coreCounts(vals) {
		for _, k := range mutexKinds(vals) {
			of := where(vals, func(v validation) bool { return v.Cores == c && v.Mutex == k })
			if len(of) == 0 {
				continue
			}
			_, rel := meanAbsError(of)
			row := []string{strconv.Itoa(c), k.String(), strconv.Itoa(len(of)), fmt.Sprintf("%.0f%%", rel)}
			for i := range pauseParts {
				var measured, predicted float64
				known := 0
				for _, v := range of {
					predicted += v.PredictedParts[i] / float64(len(of))
					if !math.IsNaN(v.MeasuredParts[i]) {
						measured += v.MeasuredParts[i]
						known++
					}
				}
				cell := ""
				if known > 0 {
					cell = render.Float(measured/float64(known), 0)
				}
				row = append(row, cell, render.Float(predicted, 0))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = append(t.Notes, "Measured: the anatomy's means (to the first job's start; first-to-last job span; "+
		"join: last job's end to resume), blank where no point has an anatomy; predicted: the same parts of pausemodel.Predict's collections; "+
		"error: the check's relative error over the row's points.")
	return t
}

// workerTimesTable sets the model's workers' CPU and wait for a CPU
// beside the measured ones, per shape: where the kernel kept runnable
// workers off the CPUs longer than the model does, their wait shows it
// (docs/predict.md). Only points whose runs counted the workers' times.
func workerTimesTable(vals []validation) *render.Table {
	t := &render.Table{Title: "model check by the workers' time: their CPU and their wait for a CPU per collection (µs, mean over the points)"}
	t.Header = [][]string{{"cores", "mutex", "workers", "points", "perjob CPU", "predicted", "perjob wait", "predicted",
		"batch CPU", "predicted", "batch wait", "predicted", "at the tick", "perjob others' CPU", "batch others' CPU"}}
	for _, c := range coreCounts(vals) {
		for _, k := range mutexKinds(vals) {
			for _, w := range workerCounts(vals) {
				row, ok := workerTimesRow(where(vals, func(v validation) bool { return v.Cores == c && v.Mutex == k && v.workers() == w }))
				if ok {
					t.Rows = append(t.Rows, append([]string{strconv.Itoa(c), k.String(), strconv.Itoa(w)}, row...))
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = append(t.Notes, "Measured: the runs' worker_cpu_us and worker_wait_us (each worker thread's schedstat, "+
		"summed over the workers: time on a CPU, and time runnable on a run queue); predicted: the same of "+
		"pausemodel.Predict's collections (its own kernel rules: preemption on every wake, newly-idle balance), and at the tick "+
		"batch's with an idle core taking a queued thread only at the next tick (pausemodel.BalanceAtTick). Points without the counters "+
		"(runs before they existed, another OS) are left out. Others' CPU: the runs' other_cpu_us, the process's other "+
		"threads' (the Go runtime's), which the model does not have; blank where the runs did not count it.")
	return t
}

// workerTimesRow is a shape's points' measured and predicted workers'
// times, the cells from "points" on; false if none counted them.
func workerTimesRow(of []validation) ([]string, bool) {
	var measured, predicted [2]workerTimes
	var others [2]float64
	var atTick float64
	n, withOthers := 0, 0
	for _, v := range of {
		per, okP := measuredWorkerTimes(v.PerJobMeans)
		batch, okB := measuredWorkerTimes(v.BatchMeans)
		if !okP || !okB {
			continue
		}
		n++
		if a, b, ok := otherCPUs(v); ok {
			withOthers++
			others[0] += a
			others[1] += b
		}
		for i, m := range [2]workerTimes{per, batch} {
			measured[i].CPU += m.CPU
			measured[i].Wait += m.Wait
			predicted[i].CPU += v.PredictedWorkerTimes[i].CPU
			predicted[i].Wait += v.PredictedWorkerTimes[i].Wait
		}
		atTick += v.PredictedBatchWaitAtTick
	}
	if n == 0 {
		return nil, false
	}
	row := []string{strconv.Itoa(n)}
	for i := range measured {
		row = append(row, render.Float(measured[i].CPU/float64(n), 0), render.Float(predicted[i].CPU/float64(n), 0),
			render.Float(measured[i].Wait/float64(n), 0), render.Float(predicted[i].Wait/float64(n), 0))
	}
	row = append(row, render.Float(atTick/float64(n), 0))
	for _, o := range others {
		cell := ""
		if withOthers > 0 {
			cell = render.Float(o/float64(withOthers), 0)
		}
		row = append(row, cell)
	}
	return row, true
}

// otherCPUs are v's perjob and batch other_cpu_us, and false unless both
// modes counted them.
func otherCPUs(v validation) (perjob, batch float64, ok bool) {
	key := gcsim.CounterOtherCPU.String()
	perjob, okP := v.PerJobMeans[key]
	batch, okB := v.BatchMeans[key]
	return perjob, batch, okP && okB
}

// A goPoint is a Go backend's measured point (threads or goroutines).
type goPoint struct {
	sweepPoint
	Host           string
	Cores          int
	PerJob, Batch  float64
	MeasuredFutile float64
}

// goPoints reads the measured points of the Go backends from reports.
func goPoints(reports []*report.Report) []goPoint {
	var out []goPoint
	for _, r := range reports {
		p, ok := readPoint(r)
		if !ok || p.Backend == "native" {
			continue
		}
		for _, run := range r.Runs {
			per, batch := run.Mode("perjob"), run.Mode("batch")
			if per == nil || batch == nil {
				continue
			}
			out = append(out, goPoint{sweepPoint: p, Host: run.Host.Label(), Cores: run.Host.Cores, PerJob: per.Summary.Mean,
				Batch: batch.Summary.Mean, MeasuredFutile: per.CounterMeans[gcsim.CounterFutileWakeups.String()]})
		}
	}
	slices.SortStableFunc(out, func(a, b goPoint) int {
		if a.Cores != b.Cores {
			return b.Cores - a.Cores
		}
		if a.Backend != b.Backend {
			return strings.Compare(a.Backend, b.Backend)
		}
		return a.Config.Workers - b.Config.Workers
	})
	return out
}

// goRuntimeTable sets each Go backend's measured perjob − batch beside the
// native points' of the same host, cores, workers and heap (the mean over
// their repeats), for each mutex kind: the gap is the Go runtime's effect
// (its scheduler between a wake and the woken: P hand-off, sysmon), which
// the model does not model.
func goRuntimeTable(gos []goPoint, vals []validation) *render.Table {
	t := &render.Table{Title: "beside the check: the Go backends, measured (µs, perjob − batch); the gap to native is the Go runtime's effect"}
	kinds := mutexKinds(vals)
	header := []string{"backend", "workers", "cores", "perjob−batch", "batch/perjob", "futile wake-ups"}
	for _, k := range kinds {
		header = append(header, "native "+k.String()+" perjob−batch", "Go runtime's effect vs "+k.String())
	}
	t.Header = [][]string{header}
	for _, g := range gos {
		row := []string{g.Backend, strconv.Itoa(g.Config.Workers), strconv.Itoa(g.Cores), render.Float(g.PerJob-g.Batch, 0), render.Float(g.Batch/g.PerJob, 3), render.Float(g.MeasuredFutile, 1)}
		for _, k := range kinds {
			same := where(vals, func(v validation) bool {
				return v.Mutex == k && v.Host == g.Host && v.Cores == g.Cores && v.Config.Workers == g.Config.Workers &&
					v.Config.MajorHeap == g.Config.MajorHeap && v.Config.LOS == g.Config.LOS && v.Config.Seed == g.Config.Seed
			})
			if len(same) == 0 {
				row = append(row, "", "")
				continue
			}
			var d float64
			for _, v := range same {
				d += v.measuredDiff() / float64(len(same))
			}
			row = append(row, render.Float(d, 0), render.Float(g.PerJob-g.Batch-d, 0))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, "Measured only: the model is SGen's pool on the kernel (the native backend). "+
		"Go runtime's effect: the Go backend's perjob−batch minus the native one's at the same point (mean over its repeats).")
	return t
}

// observedFutile is check 2's predicted futile wake-ups of v, or n/a.
func observedFutile(v validation) string {
	if !v.Observed {
		return "n/a"
	}
	return strconv.Itoa(v.ObservedFutile)
}

// envelope is check 3's bounds of a mean pause (µs), "low–high".
func envelope(a, b float64) string {
	return render.Float(min(a, b), 0) + "–" + render.Float(max(a, b), 0)
}
