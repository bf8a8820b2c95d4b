package render

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// readBench parses b with benchfmt, failing on any syntax error, and
// returns its results.
func readBench(t *testing.T, b []byte) []*benchfmt.Result {
	t.Helper()
	rd := benchfmt.NewReader(bytes.NewReader(b), "bench.txt")
	var out []*benchfmt.Result
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt: %v", rec)
		case *benchfmt.Result:
			out = append(out, rec.Clone())
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBenchFormatReadsBack: benchfmt reads one result per timed
// collection, in nanoseconds, named by mode and workers, with the
// configuration as file keys.
func TestBenchFormatReadsBack(t *testing.T) {
	r := fixtureReport(t)
	b := render(t, r, Bench)
	if !strings.Contains(string(b), "BenchmarkPause/mode=perjob/workers=2 1 ") {
		t.Errorf("no line like the issue's example:\n%.400s", b)
	}
	res := readBench(t, b)
	if len(res) != 600 {
		t.Fatalf("%d results, want 600 (200 per mode)", len(res))
	}
	for i, m := range r.Runs[0].Modes {
		for j, p := range m.Pauses {
			got := res[200*i+j]
			base, parts := got.Name.Parts()
			if string(base) != "Pause" || len(parts) != 2 || string(parts[0]) != "/mode="+m.Name || string(parts[1]) != "/workers=2" {
				t.Fatalf("name %q: base %q parts %q", got.Name, base, parts)
			}
			if v, ok := got.Value("sec/op"); got.Iters != 1 || !ok || int64(math.Round(v*1e9)) != PauseNanos(p) {
				t.Fatalf("%s #%d: %d iterations, %v s/op (ok %v), want 1 and %v µs", m.Name, j, got.Iters, v, ok, p)
			}
		}
	}
	first := res[0]
	for key, want := range map[string]string{"goos": "linux", "goarch": "amd64", "cpu": reporttest.Machine.CPUModel,
		"major_heap": "2.5 GiB", "gcs": "200", "host-gomaxprocs": "2"} {
		if got := first.GetConfig(key); got != want {
			t.Errorf("config %s = %q, want %q", key, got, want)
		}
	}
	if got := first.GetConfig("workers"); got != "" {
		t.Errorf("workers is in the name and the configuration (%q)", got)
	}
	if got := first.GetConfig("partial"); got != "" {
		t.Errorf("a whole run is partial: %q", got)
	}
}

// TestBenchFormatOfASweep: points put their grid values in the names,
// sorted as the scaling table sorts them, and keys that change between
// points are restated or ended.
func TestBenchFormatOfASweep(t *testing.T) {
	a, b, c := point(t, "8", "targeted", 0.9), point(t, "2", "targeted", 1), point(t, "2", "broadcast", 0.8)
	b.Runs[0].Partial = "interrupted"
	c.Config = append(c.Config, report.Pair{Key: "only_here", Value: "x y"})
	var out bytes.Buffer
	if err := WriteBench(&out, a, b, c); err != nil {
		t.Fatal(err)
	}
	res := readBench(t, out.Bytes())
	if len(res) != 3*100 {
		t.Fatalf("%d results", len(res))
	}
	var names []string
	for _, r := range res {
		if n := r.Name.String(); len(names) == 0 || names[len(names)-1] != n {
			names = append(names, n)
		}
	}
	want := []string{ // a key one point lacks is empty in the others' names
		"Pause/mode=perjob/only_here=/wake=targeted/workers=2", "Pause/mode=batch/only_here=/wake=targeted/workers=2",
		"Pause/mode=perjob/only_here=/wake=targeted/workers=8", "Pause/mode=batch/only_here=/wake=targeted/workers=8",
		"Pause/mode=perjob/only_here=x_y/wake=broadcast/workers=2", "Pause/mode=batch/only_here=x_y/wake=broadcast/workers=2",
	}
	if !slices.Equal(names, want) {
		t.Errorf("names\n%q\nwant\n%q", names, want)
	}
	for _, r := range res {
		partial := strings.Contains(r.Name.String(), "targeted/workers=2")
		if got := r.GetConfig("partial"); (got == "interrupted") != partial {
			t.Fatalf("%s: partial %q", r.Name, got)
		}
	}
	if strings.Contains(out.String(), "only_here:") && !strings.Contains(out.String(), "\nonly_here:\n") {
		t.Errorf("a name key written as configuration:\n%s", out.String())
	}
}

func TestBenchKeysAndNames(t *testing.T) {
	for in, want := range map[string]string{"major_heap": "major_heap", "Major Heap": "major-heap", "a:b": "a-b", "9x": "config-9x", "": "config-"} {
		if got := benchKey(in); got != want {
			t.Errorf("benchKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := benchNameValue("a b/c-8"); got != "a_b_c_8" {
		t.Errorf("benchNameValue = %q", got)
	}
}

// TestBenchFormatOfAMergedReport: runs of several hosts keep their own
// lines, told apart by a host key that benchstat can put in columns.
func TestBenchFormatOfAMergedReport(t *testing.T) {
	a, b := fixtureReport(t), fixtureReport(t)
	b.Runs[0].Host.Hostname = "bench-b"
	m, err := report.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	for _, r := range readBench(t, render(t, m, Bench)) {
		hosts[r.GetConfig("host")]++
	}
	if hosts["bench-a"] != 600 || hosts["bench-b"] != 600 || len(hosts) != 2 {
		t.Errorf("results per host %v, want 600 each of bench-a and bench-b", hosts)
	}
}
