package render

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// runsFixture is a runs summary of three runs of the fixture, batch's
// pauses scaled by 1, 0.9 and 1.1.
func runsFixture(t *testing.T) *report.RunsSummary {
	t.Helper()
	s, err := report.NewRunsSummary(context.Background(), reporttest.Runs(t, 1, 0.9, 1.1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGoldenRunsTable(t *testing.T) {
	s := runsFixture(t)
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := RunsTable(s).Write(&b, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "runs."+map[Format]string{Text: "txt", Markdown: "md"}[f], b.Bytes())
	}
}

func TestWriteRunsIsTheSummaryThenTheMedianRun(t *testing.T) {
	s := runsFixture(t)
	for _, f := range []Format{Text, Markdown} {
		var got, table, median bytes.Buffer
		if err := WriteRuns(&got, s, f); err != nil {
			t.Fatal(err)
		}
		if err := RunsTable(s).Write(&table, f); err != nil {
			t.Fatal(err)
		}
		if err := Write(&median, s.Median, f); err != nil {
			t.Fatal(err)
		}
		if want := table.String() + "\n" + median.String(); got.String() != want {
			t.Errorf("%v: WriteRuns is not the runs table, a blank line and the median run's report:\n%s", f, got.String())
		}
	}
	var b bytes.Buffer
	if err := WriteRuns(&b, s, JSON); err != nil || !strings.Contains(b.String(), report.RunsSchema) {
		t.Errorf("JSON: %v\n%s", err, b.String())
	}
	if err := WriteRuns(&b, s, CSV); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("CSV: %v, want ErrInvalidInput", err)
	}
}

func TestRunsLineSaysTheDirectionOfTheMedian(t *testing.T) {
	c := report.RunsComparison{Base: "perjob", New: "batch", Runs: make([]report.RunFigure, 3),
		Median: -4.2, Lo: -5.0, Hi: 1.5}
	c.Bootstrap.Lo, c.Bootstrap.Hi, c.Bootstrap.Confidence = -5.8, -2.7, 0.95
	want := "batch vs perjob over 3 runs: median 4.2% longer (runs -1.5 to 5.0%, 95% bootstrap interval 2.7–5.8%)"
	if got := RunsLine(c); got != want {
		t.Errorf("RunsLine = %q, want %q", got, want)
	}
	c.Median, c.Lo, c.Hi, c.Bootstrap.Lo, c.Bootstrap.Hi = 4.2, 3.1, 5.0, 2.7, 5.8
	want = "batch vs perjob over 3 runs: median 4.2% shorter (runs 3.1–5.0%, 95% bootstrap interval 2.7–5.8%)"
	if got := RunsLine(c); got != want {
		t.Errorf("RunsLine = %q, want %q", got, want)
	}
}

func TestGoldenRunsScalingTable(t *testing.T) {
	sweep := func(scale float64) []*report.Report {
		var points []*report.Report
		for _, w := range []string{"1", "2"} {
			in := reporttest.Inputs()
			s := scale
			if w == "2" {
				s *= 0.9
			}
			for j := range in[2].Pauses {
				in[2].Pauses[j] *= s
			}
			run, err := report.NewRun(reporttest.Machine, in)
			if err != nil {
				t.Fatal(err)
			}
			points = append(points, report.NewReport("minor-collection pause",
				report.Config{{Key: "gcs", Value: "200"}, {Key: "workers", Value: w}}, run))
		}
		return points
	}
	s, err := report.NewRunsScaling(context.Background(), [][]*report.Report{sweep(1), sweep(0.95), sweep(1.05)},
		[]string{"sweep1", "sweep2", "sweep3"}, "perjob", "batch")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteRunsScaling(&b, s, Markdown); err != nil {
		t.Fatal(err)
	}
	golden(t, "runs-scaling.md", b.Bytes())
	if err := WriteRunsScaling(&b, s, CSV); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("CSV: %v, want ErrInvalidInput", err)
	}
}
