package report_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// sweepOf is a sweep of points at the given worker counts, batch's pauses
// scaled by scale at every point and by a further 0.9 beyond one worker.
func sweepOf(t *testing.T, scale float64, workers ...string) []*report.Report {
	t.Helper()
	var points []*report.Report
	for _, w := range workers {
		s := scale
		if w != "1" {
			s *= 0.9
		}
		in := reporttest.Inputs()
		for j := range in[2].Pauses {
			in[2].Pauses[j] *= s
		}
		run, err := report.NewRun(reporttest.Machine, in)
		if err != nil {
			t.Fatal(err)
		}
		config := report.Config{{Key: "gcs", Value: "200"}, {Key: "workers", Value: w}}
		points = append(points, report.NewReport("minor-collection pause", config, run))
	}
	return points
}

func TestRunsScalingGivesEachPointsRunsMedianAndRange(t *testing.T) {
	ctx := context.Background()
	sweeps := [][]*report.Report{sweepOf(t, 1, "1", "2"), sweepOf(t, 0.95, "2", "1"), sweepOf(t, 1.05, "1", "2")}
	s, err := report.NewRunsScaling(ctx, sweeps, []string{"a", "b", "c"}, "perjob", "batch")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 2 || strings.Join(s.Keys, ",") != "workers" {
		t.Fatalf("points %+v, keys %v", s.Points, s.Keys)
	}
	for _, p := range s.Points {
		if len(p.Ratios) != 3 {
			t.Fatalf("point %s: %d ratios", p.Config, len(p.Ratios))
		}
		// run 2's batch is the fastest, run 3's the slowest, at every point
		r1, r2, r3 := p.Ratios[0].Value, p.Ratios[1].Value, p.Ratios[2].Value
		if !(r2 < r1 && r1 < r3) || p.Median != r1 || p.Lo != r2 || p.Hi != r3 {
			t.Errorf("point %s: ratios %v %v %v, median %v, range %v–%v", p.Config, r1, r2, r3, p.Median, p.Lo, p.Hi)
		}
	}
	if !(s.Points[1].Median < s.Points[0].Median) {
		t.Errorf("the point of 2 workers (batch scaled by 0.9) has the larger median: %+v", s.Points)
	}

	missing := [][]*report.Report{sweepOf(t, 1, "1", "2"), sweepOf(t, 1, "1", "4")}
	if _, err := report.NewRunsScaling(ctx, missing, []string{"a", "b"}, "perjob", "batch"); !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "workers=4") {
		t.Errorf("sweeps of other grids: %v, want ErrConfigMismatch naming the point", err)
	}
	short := [][]*report.Report{sweepOf(t, 1, "1", "2"), sweepOf(t, 1, "1")}
	if _, err := report.NewRunsScaling(ctx, short, []string{"a", "b"}, "perjob", "batch"); !errors.Is(err, report.ErrConfigMismatch) {
		t.Errorf("a sweep with fewer points: %v, want ErrConfigMismatch", err)
	}
	host := [][]*report.Report{sweepOf(t, 1, "1", "2"), sweepOf(t, 1, "1", "2")}
	for _, p := range host[1] {
		p.Runs[0].Host.Hostname = "bench-b"
	}
	if _, err := report.NewRunsScaling(ctx, host, []string{"a", "b"}, "perjob", "batch"); !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "bench-b") {
		t.Errorf("a sweep on another host: %v, want ErrConfigMismatch naming it", err)
	}
	if _, err := report.NewRunsScaling(ctx, sweeps[:1], []string{"a"}, "perjob", "batch"); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("one sweep: %v, want ErrInvalidInput", err)
	}
}
