package analysis

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixtureInputs is the fixed sample set behind every golden file: three
// modes of 200 pauses each, built from integer arithmetic only so that they
// are the same on every machine, with a few long-tail samples per mode.
func fixtureInputs() []ModeInput {
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
	return []ModeInput{
		{Name: "serial", Pauses: gen(200, 900, 1.5, 7919, 211, 50, 0, 600), Counters: counters(200, 17, 0), Disturbed: []int{5, 77}},
		{Name: "perjob", Pauses: gen(200, 1200, 2, 104729, 223, 40, 7, 900), Counters: counters(200, 17, 17)},
		{Name: "batch", Pauses: gen(200, 800, 1.5, 7907, 199, 60, 3, 500), Counters: counters(200, 17, 1), Disturbed: []int{10}},
	}
}

var fixtureHost = Host{Hostname: "bench-a", CPUModel: "Example CPU @ 2.00GHz", Cores: 2, GOMAXPROCS: 2,
	GoVersion: "go1.26.0", OS: "linux", Arch: "amd64"}

var fixtureConfig = map[string]string{"major_heap": "2.5 GiB", "los": "1 GiB", "gcs": "200", "workers": "2"}

func fixtureReport(t testing.TB) *Report {
	t.Helper()
	run, err := NewRun(fixtureHost, fixtureInputs())
	if err != nil {
		t.Fatal(err)
	}
	run.Elapsed = Duration(12500 * time.Millisecond)
	run.Started = time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	run.Facts = map[string]float64{"major_gcs": 3}
	return NewReport("minor-collection pause", fixtureConfig, run)
}

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (go test ./analysis -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s",
			path, t.Name(), got, want)
	}
}
