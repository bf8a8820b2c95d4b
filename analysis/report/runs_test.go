package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// repeatedRuns are reporttest.Runs: repeated runs whose batch-vs-perjob
// improvements differ.
func repeatedRuns(t *testing.T, scales ...float64) []*report.Report {
	return reporttest.Runs(t, scales...)
}

func TestRunsSummaryGivesEachRunMedianRangeAndInterval(t *testing.T) {
	runs := repeatedRuns(t, 1.0, 0.9, 1.1)
	s, err := report.NewRunsSummary(context.Background(), runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Comparisons) != 2 || s.Verdict().Base != "perjob" || s.Verdict().New != "batch" {
		t.Fatalf("comparisons %+v, want batch vs serial, then batch vs perjob", s.Comparisons)
	}
	for ci, c := range s.Comparisons {
		if len(c.Runs) != 3 {
			t.Fatalf("comparison %d has %d runs", ci, len(c.Runs))
		}
		for i, f := range c.Runs {
			want, _ := runs[i].Runs[0].Comparisons[ci].ImprovementOf(report.VerdictStatistic)
			if f.Improvement != want {
				t.Errorf("comparison %d run %d: improvement %v, want the run's own %v", ci, i+1, f.Improvement, want)
			}
			if f.CI.Confidence == 0 || !(f.CI.Lo <= f.Improvement && f.Improvement <= f.CI.Hi) {
				t.Errorf("comparison %d run %d: CI %+v does not hold %v", ci, i+1, f.CI, f.Improvement)
			}
		}
		// scaled by 0.9 is the best run, by 1.1 the worst: run 1 is the median
		if c.Median != c.Runs[0].Improvement || c.Lo != c.Runs[2].Improvement || c.Hi != c.Runs[1].Improvement {
			t.Errorf("comparison %d: median %v, range %v–%v, runs %+v", ci, c.Median, c.Lo, c.Hi, c.Runs)
		}
		if b := c.Bootstrap; b.Confidence != 0.95 || !(b.Lo < c.Median && c.Median < b.Hi) {
			t.Errorf("comparison %d: bootstrap interval %+v does not hold the median %v", ci, b, c.Median)
		}
	}
	if s.MedianRun != 0 || s.Median.Source != "run1.json" || len(s.Median.Runs) != 1 {
		t.Errorf("median run %d (%s), want run 1 as a report of its own", s.MedianRun, s.Median.Source)
	}
	again, err := report.NewRunsSummary(context.Background(), repeatedRuns(t, 1.0, 0.9, 1.1))
	if err != nil {
		t.Fatal(err)
	}
	if again.Verdict().Bootstrap != s.Verdict().Bootstrap {
		t.Errorf("the bootstrap is not reproducible: %+v, then %+v", s.Verdict().Bootstrap, again.Verdict().Bootstrap)
	}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["schema"] != report.RunsSchema || back["median_run"] != 0.0 {
		t.Errorf("JSON %s (%v)", b.String(), err)
	}
	if _, err := report.ReadJSON(&b); !errors.Is(err, report.ErrSchema) {
		t.Errorf("ReadJSON of a runs summary: %v, want ErrSchema", err)
	}
}

func TestRunsSummaryRefusesRunsOfOtherConfigurationsOrHosts(t *testing.T) {
	ctx := context.Background()
	other := repeatedRuns(t, 1, 0.9, 1.1)
	other[2].Config = append(report.Config{{Key: "seed", Value: "2"}}, other[2].Config...)
	_, err := report.NewRunsSummary(ctx, other)
	if !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "run3.json") {
		t.Errorf("a run of another configuration: %v, want ErrConfigMismatch naming run3.json", err)
	}
	host := repeatedRuns(t, 1, 0.9)
	host[1].Runs[0].Host.Hostname = "bench-b"
	if _, err := report.NewRunsSummary(ctx, host); !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "bench-b") {
		t.Errorf("a run on another host: %v, want ErrConfigMismatch naming it", err)
	}
	twice := repeatedRuns(t, 1, 1)
	if _, err := report.NewRunsSummary(ctx, twice); !errors.Is(err, report.ErrDuplicateRun) {
		t.Errorf("one run twice: %v, want ErrDuplicateRun", err)
	}
	if _, err := report.NewRunsSummary(ctx, repeatedRuns(t, 1)); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("one run: %v, want ErrInvalidInput", err)
	}
	merged, err := report.Merge(repeatedRuns(t, 1, 0.9)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.NewRunsSummary(ctx, []*report.Report{merged, repeatedRuns(t, 1.1)[0]}); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("a merged report among the runs: %v, want ErrInvalidInput", err)
	}
	partial := repeatedRuns(t, 1, 0.9)
	partial[0].Runs[0].Partial = "stopped by a signal"
	if _, err := report.NewRunsSummary(ctx, partial); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("a partial run: %v, want ErrInvalidInput", err)
	}
	cancelled, cancel := context.WithCancelCause(ctx)
	stop := errors.New("stop")
	cancel(stop)
	if _, err := report.NewRunsSummary(cancelled, repeatedRuns(t, 1, 0.9)); !errors.Is(err, stop) {
		t.Errorf("a cancelled summary: %v, want the context's cause", err)
	}
}
