// Package reporttest builds the fixed report that the tests of gcbench's
// report and rendering packages share: three modes of 200 pauses made by
// integer arithmetic, the same on every machine, so that golden files stay
// byte for byte identical.
package reporttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
)

// Inputs is the fixed sample set behind the golden files of package render: three
// modes of 200 pauses each, built from integer arithmetic only so that they
// are the same on every machine, with a few long-tail samples per mode.
func Inputs() []report.ModeInput {
	gen := func(n int, base, step float64, mult, mod, tailEvery, tailAt int, tail float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = base + float64(i*mult%mod)*step
			if i%tailEvery == tailAt {
				xs[i] += tail
			}
		}
		return xs
	}
	counters := func(n int, jobs, wakes float64) map[string][]float64 {
		js, ws := make([]float64, n), make([]float64, n)
		for i := range js {
			js[i], ws[i] = jobs, wakes+float64(i%3)
		}
		return map[string][]float64{"jobs": js, "wake_calls": ws}
	}
	return []report.ModeInput{
		{Name: "serial", Pauses: gen(200, 900, 1.5, 7919, 211, 50, 0, 600), Counters: counters(200, 17, 0), Disturbed: []int{5, 77}},
		{Name: "perjob", Pauses: gen(200, 1200, 2, 104729, 223, 40, 7, 900), Counters: counters(200, 17, 17)},
		{Name: "batch", Pauses: gen(200, 800, 1.5, 7907, 199, 60, 3, 500), Counters: counters(200, 17, 1), Disturbed: []int{10}},
	}
}

// Machine is the machine the fixture claims to have run on.
var Machine = report.Host{Hostname: "bench-a", CPUModel: "Example CPU @ 2.00GHz", Cores: 2, GOMAXPROCS: 2,
	GoVersion: "go1.26.0", OS: "linux", Arch: "amd64"}

// Config is the fixture's configuration, its pairs sorted by key as the
// golden files show them.
var Config = report.Config{{Key: "gcs", Value: "200"}, {Key: "los", Value: "1 GiB"}, {Key: "major_heap", Value: "2.5 GiB"},
	{Key: "workers", Value: "2"}}

// Report is a report of one run of Inputs on Machine, with a fixed
// start, elapsed time and facts.
func Report(t testing.TB) *report.Report {
	t.Helper()
	run, err := report.NewRun(Machine, Inputs())
	if err != nil {
		t.Fatal(err)
	}
	run.Elapsed = report.Duration(12500 * time.Millisecond)
	run.Started = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	run.Facts = map[string]float64{"major_gcs": 3}
	return report.NewReport("minor-collection pause", Config, run)
}

// Runs are len(scales) reports of Inputs on Machine, repeated runs of one
// configuration: run i's batch pauses scaled by scales[i], so that their
// batch-vs-perjob improvements differ, and its Source "run<i+1>.json".
func Runs(t testing.TB, scales ...float64) []*report.Report {
	t.Helper()
	var out []*report.Report
	for i, s := range scales {
		in := Inputs()
		for j := range in[2].Pauses {
			in[2].Pauses[j] *= s
		}
		run, err := report.NewRun(Machine, in)
		if err != nil {
			t.Fatal(err)
		}
		r := report.NewReport("minor-collection pause", Config, run)
		r.Source = fmt.Sprintf("run%d.json", i+1)
		out = append(out, r)
	}
	return out
}
