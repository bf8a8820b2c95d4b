package modelcheck

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
)

// A Calibration is the model's costs on this host for each mutex kind of
// pausemodel.MutexKinds (the kinds it is calibrated for, checked on and
// predicts for, in the order the tables list them): every cost's median
// over the calibration runs, which the check and the predictions use, and
// each run's costs, whose spread they show.
type Calibration struct {
	medians map[workerpool.MutexKind]pausemodel.Costs
	runs    map[workerpool.MutexKind][]pausemodel.Costs
}

// Calibrate calibrates each kind of pausemodel.MutexKinds n times
// (pausemodel.Calibrate), in that order, and calls done with the
// calibration so far after each kind: a kind takes seconds, and a command
// shows each as it comes. An error names the kind it stopped at.
func Calibrate(ctx context.Context, n int, done func(k workerpool.MutexKind, so Calibration)) (Calibration, error) {
	cal := Calibration{medians: map[workerpool.MutexKind]pausemodel.Costs{}, runs: map[workerpool.MutexKind][]pausemodel.Costs{}}
	for _, k := range pausemodel.MutexKinds() {
		m, all, err := pausemodel.Calibrate(ctx, n, k)
		if err != nil {
			return cal, fmt.Errorf("calibrating the %v mutex: %w", k, err)
		}
		cal.medians[k], cal.runs[k] = m, all
		done(k, cal)
	}
	return cal, nil
}

// Facts says what the calibration of kind k found, measured on the host
// on describes: its median costs and, over more than one run, each cost's
// range; the lines a command shows above the check's tables.
func (c Calibration) Facts(k workerpool.MutexKind, on string) []render.Fact {
	runs := c.runs[k]
	facts := []render.Fact{{Key: fmt.Sprintf("calibration, %v mutex", k),
		Value: fmt.Sprintf("on %s, median of %d runs: %v", on, len(runs), c.medians[k])}}
	if len(runs) > 1 {
		facts = append(facts, render.Fact{Key: fmt.Sprintf("calibration runs' range (%v)", k), Value: pausemodel.RangeOf(runs).String()})
	}
	return facts
}

// calibrationRunErrors is the check's relative mean absolute error (%, as
// meanAbsError's rel) under each calibration run's own costs, runs[k][i]
// for every kind k of run i: how far the verdict, made with the medians,
// rests on them. It is nil with fewer than two runs of every kind, where
// there is no spread to show.
func calibrationRunErrors(runs map[workerpool.MutexKind][]pausemodel.Costs, reports []*report.Report, work workOf, slow slowdownOf) ([]float64, error) {
	n := -1
	for _, rs := range runs {
		if n < 0 || len(rs) < n {
			n = len(rs)
		}
	}
	if n < 2 {
		return nil, nil
	}
	errs := make([]float64, 0, n)
	for i := range n {
		costs := map[workerpool.MutexKind]pausemodel.Costs{}
		for k, rs := range runs {
			costs[k] = rs[i]
		}
		v, err := validatePoints(costs, reports, work, slow)
		if err != nil {
			return nil, fmt.Errorf("checking calibration run %d: %w", i+1, err)
		}
		_, rel := meanAbsError(v)
		errs = append(errs, rel)
	}
	return errs, nil
}
