package render

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

// readHDRLog reads a log with the library's reader and merges its interval
// histograms per tag, counting the intervals.
func readHDRLog(t *testing.T, b []byte) (merged map[string]*hdrhistogram.Histogram, intervals map[string]int) {
	t.Helper()
	merged, intervals = map[string]*hdrhistogram.Histogram{}, map[string]int{}
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading the log back: %v", err)
		}
		if h == nil {
			break
		}
		intervals[h.Tag()]++
		if m := merged[h.Tag()]; m != nil {
			if dropped := m.Merge(h); dropped != 0 {
				t.Fatalf("merging %s's intervals dropped %d values", h.Tag(), dropped)
			}
		} else {
			merged[h.Tag()] = h
		}
	}
	return merged, intervals
}

// TestHDRLogReadsBack: hdrhistogram-go reads every collection back, one
// tag per mode, and its percentiles agree with the package's own at the
// same rank, within the histogram's equivalent-value range (0.1% at three
// significant digits).
func TestHDRLogReadsBack(t *testing.T) {
	r := fixtureReport(t)
	// Pauses of whole nanoseconds over six decades, so that buckets of
	// every width are read back.
	r.Runs[0].Modes[0].Pauses[3] = 0.001
	r.Runs[0].Modes[0].Pauses[4] = 98765.432
	r.Runs[0].Modes[0].Summary = stats.Summarize(r.Runs[0].Modes[0].Pauses)
	var b bytes.Buffer
	if err := WriteHDRLog(&b, r, 30); err != nil {
		t.Fatal(err)
	}
	log := b.String()
	for _, want := range []string{"#[Histogram log format version 1.3]", "#[StartTime: 1795982400 (seconds since epoch), 2026-11-29T20:00:00Z]",
		"#[BaseTime: 1795982400 (seconds since epoch)]", "\nTag=serial,0.000000,", "\nTag=batch,"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%.600s", want, log)
		}
	}
	merged, intervals := readHDRLog(t, b.Bytes())
	if len(merged) != 3 {
		t.Fatalf("tags %v, want one per mode", slices.Collect(func(yield func(string) bool) {
			for k := range merged {
				yield(k)
			}
		}))
	}
	for _, m := range r.Runs[0].Modes {
		h := merged[m.Name]
		n := len(m.Pauses)
		if h == nil || h.TotalCount() != int64(n) || intervals[m.Name] != (n+29)/30 {
			t.Fatalf("%s: %v histogram(s), %d intervals; want %d values in %d", m.Name, h, intervals[m.Name], n, (n+29)/30)
		}
		sorted := slices.Clone(m.Pauses)
		slices.Sort(sorted)
		for _, p := range []float64{0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1} {
			got := h.ValueAtQuantile(p * 100)
			rank := max(1, int(math.Floor(p*float64(n)+0.5))) // the library's rank
			want := PauseNanos(sorted[rank-1])
			if !h.ValuesAreEquivalent(got, want) || math.Abs(float64(got-want)) > 0.001*float64(want) {
				t.Errorf("%s p%g: the log reads %d ns, the sample's value at rank %d is %d ns", m.Name, p*100, got, rank, want)
			}
			// Where the package's rank ⌈p·n⌉ is the library's, its own
			// tail percentile is that same value.
			if own := map[float64]float64{0.9: m.Summary.P90, 0.99: m.Summary.P99, 0.999: m.Summary.P999}; own[p] != 0 &&
				int(math.Ceil(p*float64(n))) == rank && PauseNanos(own[p]) != want {
				t.Errorf("%s p%g: Summary says %v µs, rank %d is %d ns", m.Name, p*100, own[p], rank, want)
			}
		}
		// The quartiles interpolate: the log's value at the same quantile
		// lies within the two order statistics they interpolate between.
		for q, v := range []float64{m.Summary.Q1, m.Summary.Median, m.Summary.Q3} {
			got := float64(h.ValueAtQuantile(25 * float64(q+1)))
			lo, hi := sorted[(n-1)*(q+1)/4], sorted[min(n-1, (n-1)*(q+1)/4+1)]
			if got < float64(PauseNanos(lo))*0.999 || got > float64(PauseNanos(hi))*1.001 {
				t.Errorf("%s Q%d: the log reads %v ns, outside [%v, %v] µs around the quartile %v µs", m.Name, q+1, got, lo, hi, v)
			}
		}
	}
	// The max column is the interval's max in milliseconds.
	for line := range strings.Lines(log) {
		if rest, ok := strings.CutPrefix(line, "Tag=serial,0.000000,"); ok {
			f := strings.Split(rest, ",")
			mx, err := strconv.ParseFloat(f[1], 64)
			want := float64(PauseNanos(slices.Max(r.Runs[0].Modes[0].Pauses[:30]))) / 1e6
			if err != nil || math.Abs(mx-want) > 0.001*want {
				t.Errorf("first interval's max %q, want %v ms", f[1], want)
			}
		}
	}
}

// TestHDRLogOfAMergedReport: runs of several hosts are tagged host/mode,
// with no space or comma, their times relative to the earliest start.
func TestHDRLogOfAMergedReport(t *testing.T) {
	a, b := fixtureReport(t), fixtureReport(t)
	b.Runs[0].Host.Hostname = "bench b,2"
	b.Runs[0].Started = b.Runs[0].Started.Add(-60e9)
	m, err := report.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteHDRLog(&out, m, 1000); err != nil {
		t.Fatal(err)
	}
	merged, _ := readHDRLog(t, out.Bytes())
	for _, tag := range []string{"bench-a/serial", "bench_b_2/perjob"} {
		if h := merged[tag]; h == nil || h.TotalCount() != 200 {
			t.Errorf("tag %s: %v", tag, h)
		}
	}
	if !strings.Contains(out.String(), "\nTag=bench-a/serial,60.000000,") {
		t.Errorf("bench-a's first interval does not start 60 s after bench b's:\n%.800s", out.String())
	}
	if err := WriteHDRLog(io.Discard, m, 0); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("an interval of 0 collections: %v", err)
	}
}

func ExampleWriteHDRLog() {
	run, _ := report.NewRun(report.Host{}, []report.ModeInput{{Name: "batch", Pauses: []float64{2206, 2210.5, 1980.25}}})
	var b bytes.Buffer
	_ = WriteHDRLog(&b, report.NewReport("minor-collection pause", nil, run), 100)
	h, _ := hdrhistogram.NewHistogramLogReader(&b).NextIntervalHistogram()
	fmt.Println(h.Tag(), h.TotalCount(), h.ValueAtQuantile(50)) // the median, 2206000 ns, as the highest value of its bucket
	// Output: batch 3 2207743
}

// TestHDRLogAgreesWithThePauseTable: the log's Min, p90, p99, p99.9 and
// Max, as hdrhistogram-go reads them (ValueAtQuantile), agree with the
// pause table's rows within the log's precision (0.1%, the width of a
// bucket at HDRSignificantDigits). The fixture's 200 collections per mode
// put the library's rank ⌊p·n + 0.5⌋ and the table's ⌈p·n⌉ on the same
// order statistic, which the test checks first: where they differ, the log
// reads the order statistic one below (docs/methodology.md says so).
func TestHDRLogAgreesWithThePauseTable(t *testing.T) {
	r := fixtureReport(t)
	var b bytes.Buffer
	if err := WriteHDRLog(&b, r, 30); err != nil {
		t.Fatal(err)
	}
	merged, _ := readHDRLog(t, b.Bytes())
	recs, err := csv.NewReader(bytes.NewReader(render(t, r, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	row := map[string][]string{}
	for _, rec := range recs[1:] {
		row[rec[0]] = rec
	}
	for mi, m := range r.Runs[0].Modes {
		h, n := merged[m.Name], len(m.Pauses)
		if h == nil || recs[0][mi+1] != m.Name {
			t.Fatalf("%s: no histogram, or column %d is %q", m.Name, mi+1, recs[0][mi+1])
		}
		for _, q := range []struct {
			label string
			p     float64
		}{{"Min", 0}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}, {"Max", 1}} {
			if q.p > 0 && q.p < 1 && int(math.Ceil(q.p*float64(n))) != int(math.Floor(q.p*float64(n)+0.5)) {
				t.Fatalf("%s with %d collections: the table and the library rank differently; pick another n", q.label, n)
			}
			cell, err := strconv.ParseFloat(row[q.label][mi+1], 64) // µs at 3 decimals: whole nanoseconds
			if err != nil {
				t.Fatalf("%s %s: %v", m.Name, q.label, err)
			}
			table := PauseNanos(cell)
			got := h.ValueAtQuantile(q.p * 100)
			if !h.ValuesAreEquivalent(got, table) || math.Abs(float64(got-table)) > 0.001*float64(table) {
				t.Errorf("%s %s: the table says %d ns, the log reads %d ns: more than its precision apart", m.Name, q.label, table, got)
			}
		}
	}
}
