package check

import (
	"fmt"

	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/report"
)

// Kinds are the mutex kinds the model is calibrated for, checked on and
// predicts for, in the order the tables list them.
var Kinds = []pausemodel.Mutex{pausemodel.Normal, pausemodel.PI}

// RunErrors is the check's relative mean absolute error (%, as
// MeanAbsError's rel) under each calibration run's own costs, runs[k][i]
// for every kind k of run i: how far the verdict, made with the medians,
// rests on them. It is nil with fewer than two runs of every kind, where
// there is no spread to show.
func RunErrors(runs map[pausemodel.Mutex][]pausemodel.Costs, reports []*report.Report, work WorkOf) ([]float64, error) {
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
		costs := map[pausemodel.Mutex]pausemodel.Costs{}
		for k, rs := range runs {
			costs[k] = rs[i]
		}
		v, err := Validate(costs, reports, work)
		if err != nil {
			return nil, fmt.Errorf("checking calibration run %d: %w", i+1, err)
		}
		_, rel := MeanAbsError(v)
		errs = append(errs, rel)
	}
	return errs, nil
}
