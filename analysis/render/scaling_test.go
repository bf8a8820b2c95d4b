package render

import (
	"bytes"
	"encoding/csv"
	"errors"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
)

func seq(n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * float64(i+1)
	}
	return xs
}

// point is a sweep point's report: perjob pauses around 100 µs, batch
// scaled by ratio, and a futex counter.
func point(t *testing.T, workers, wake string, ratio float64) *report.Report {
	t.Helper()
	run, err := report.NewRun(report.Host{Hostname: "vm"}, []report.ModeInput{
		{Name: "perjob", Pauses: seq(50, 2), Counters: map[string][]float64{"futex": {10, 30}}},
		{Name: "batch", Pauses: seq(50, 2*ratio), Counters: map[string][]float64{"futex": {4}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return report.NewReport("minor-collection pause", report.Config{{Key: "gcs", Value: "50"}, {Key: report.ConfigModes, Value: "perjob,batch"},
		{Key: "wake", Value: wake}, {Key: "workers", Value: workers}}, run)
}

func TestScaling(t *testing.T) {
	reports := []*report.Report{point(t, "8", "targeted", 0.9), point(t, "2", "targeted", 1), point(t, "16", "broadcast", 0.5),
		point(t, "2", "broadcast", 0.8), point(t, "8", "broadcast", 0.7)}
	s, err := report.NewScaling(reports, "perjob", "batch", []report.ScalingCounter{{Key: "futex", Label: "futex calls"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Keys, ","); got != "wake,workers" {
		t.Errorf("keys %q, want wake,workers", got)
	}
	var order []string
	for _, p := range s.Points {
		order = append(order, p.Config.Value("wake")+"/"+p.Config.Value("workers"))
	}
	if got := strings.Join(order, " "); got != "broadcast/2 broadcast/8 broadcast/16 targeted/2 targeted/8" {
		t.Errorf("rows in order %q: want by wake, then workers as numbers", got)
	}
	if p := s.Points[2]; p.TrimMean10.Value != 0.5 || p.BaseMeans["futex"] != 20 || p.NewMeans["futex"] != 4 {
		t.Errorf("broadcast/16: %+v", p)
	}
	var text bytes.Buffer
	if err := WriteScaling(&text, s, Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TrimMean 10% batch/perjob", "futex calls perjob", "config: gcs=50 modes=perjob,batch", "0.500"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, text.String())
		}
	}
	var pic bytes.Buffer
	if err := WriteScalingPlot(&pic, s, "png"); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&pic); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
}

func TestScalingRejects(t *testing.T) {
	counters := []report.ScalingCounter{{Key: "futex", Label: "futex calls"}}
	if _, err := report.NewScaling([]*report.Report{point(t, "2", "broadcast", 1), point(t, "2", "broadcast", 1)}, "perjob", "batch", counters); !errors.Is(err, report.ErrDuplicateRun) {
		t.Errorf("a point twice: err = %v", err)
	}
	if _, err := report.NewScaling([]*report.Report{point(t, "2", "broadcast", 1)}, "serial", "batch", counters); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("a missing mode: err = %v", err)
	}
	if _, err := report.NewScaling(nil, "perjob", "batch", counters); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("no points: err = %v", err)
	}
	s, err := report.NewScaling([]*report.Report{point(t, "2", "broadcast", 1), point(t, "2", "targeted", 1)}, "perjob", "batch", counters)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteScalingPlot(&bytes.Buffer{}, s, "png"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("plot without varying workers: err = %v", err)
	}
}

// TestScalingOfAGridShardedOverMachines: each point of a grid measured on
// one of several machines (--shard on a cluster) makes one table and one
// line per wake policy, with the machines in a note; the same point on
// two machines makes the host a key, so that their rows stay apart.
func TestScalingOfAGridShardedOverMachines(t *testing.T) {
	on := func(r *report.Report, host string) *report.Report { r.Runs[0].Host.Hostname = host; return r }
	sharded := []*report.Report{on(point(t, "1", "broadcast", 1), "node0"), on(point(t, "2", "broadcast", 0.9), "node1"),
		on(point(t, "4", "broadcast", 0.8), "node2"), on(point(t, "8", "broadcast", 0.7), "node3")}
	s, err := report.NewScaling(sharded, "perjob", "batch", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Keys, ","); got != "workers" {
		t.Errorf("keys %q, want workers alone", got)
	}
	if notes := strings.Join(ScalingTable(s).Notes, "\n"); !strings.Contains(notes, "measured on 4 machines, each point on one: node0, node1, node2, node3") {
		t.Errorf("notes %q: want the machines named", notes)
	}
	twice, err := report.NewScaling(append(sharded, on(point(t, "8", "broadcast", 0.6), "node0")), "perjob", "batch", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(twice.Keys, ","); got != "host,workers" {
		t.Errorf("keys %q, want host,workers when a point was measured on two machines", got)
	}
}

// TestScalingCSVIsForMachines: every number of the scaling CSV parses as
// one, each interval in two columns, and a partial point says so.
func TestScalingCSVIsForMachines(t *testing.T) {
	s, err := report.NewScaling([]*report.Report{point(t, "2", "broadcast", 0.8), point(t, "8", "broadcast", 0.5)}, "perjob", "batch",
		[]report.ScalingCounter{{Key: "futex", Label: "futex calls"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Points[1].Partial = "interrupted"
	var b bytes.Buffer
	if err := WriteScaling(&b, s, CSV); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	if want := []string{"workers", "trimmean10 batch/perjob", "trimmean10 ci lo", "trimmean10 ci hi", "median batch/perjob", "median ci lo",
		"median ci hi", "p", "partial", "futex calls perjob", "futex calls batch", "config", "host"}; !slices.Equal(head, want) {
		t.Fatalf("header %q, want %q", head, want)
	}
	for _, rec := range recs[1:] {
		for i, cell := range rec {
			if head[i] == "partial" || head[i] == "config" || head[i] == "host" {
				continue
			}
			if _, err := strconv.ParseFloat(cell, 64); err != nil {
				t.Errorf("%s = %q is not a number", head[i], cell)
			}
		}
	}
	if recs[2][8] != "interrupted" {
		t.Errorf("the partial point's record %q does not say so", recs[2])
	}
}
