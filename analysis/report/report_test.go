package report_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

func TestNewRunComparesLastModeWithEachEarlier(t *testing.T) {
	run, err := report.NewRun(reporttest.Machine, reporttest.Inputs())
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Comparisons) != 2 {
		t.Fatalf("%d comparisons, want 2", len(run.Comparisons))
	}
	for i, base := range []string{"serial", "perjob"} {
		if c := run.Comparisons[i]; c.Base != base || c.New != "batch" {
			t.Errorf("comparison %d = %s vs %s", i, c.New, c.Base)
		}
	}
	serial := run.Modes[0]
	if serial.DisturbedCount != 2 || serial.CounterMeans["jobs"] != 17 || math.Abs(serial.CounterMeans["wake_calls"]-199.0/200) > 1e-9 {
		t.Errorf("serial mode: disturbed %d, counters %v", serial.DisturbedCount, serial.CounterMeans)
	}
}

func TestNewRunRejectsBadInput(t *testing.T) {
	ok := []float64{1, 2}
	tests := map[string][]report.ModeInput{
		"no modes":     nil,
		"no name":      {{Pauses: ok}},
		"no samples":   {{Name: "a"}},
		"NaN":          {{Name: "a", Pauses: []float64{1, math.NaN()}}},
		"Inf":          {{Name: "a", Pauses: []float64{math.Inf(1)}}},
		"duplicate":    {{Name: "a", Pauses: ok}, {Name: "a", Pauses: ok}},
		"bad index":    {{Name: "a", Pauses: ok, Disturbed: []int{2}}},
		"NaN counter":  {{Name: "a", Pauses: ok, Counters: map[string][]float64{"c": {math.NaN()}}}},
		"negative idx": {{Name: "a", Pauses: ok, Disturbed: []int{-1}}},
		"negative":     {{Name: "a", Pauses: []float64{-1}}},
		"huge":         {{Name: "a", Pauses: []float64{1e308, 1e308}}},
	}
	for name, in := range tests {
		if _, err := report.NewRun(reporttest.Machine, in); !errors.Is(err, report.ErrInvalidInput) {
			t.Errorf("%s: err = %v, want ErrInvalidInput", name, err)
		}
	}
}

func TestNewRunCopiesInputs(t *testing.T) {
	in := []report.ModeInput{{Name: "a", Pauses: []float64{3, 1, 2}, Disturbed: []int{0}}}
	run, err := report.NewRun(reporttest.Machine, in)
	if err != nil {
		t.Fatal(err)
	}
	in[0].Pauses[0], in[0].Disturbed[0] = 99, 2
	if run.Modes[0].Pauses[0] != 3 || run.Modes[0].Disturbed[0] != 0 {
		t.Error("NewRun retained its input slices")
	}
}

// TestFirstDifferenceIsAlphabeticalAndCountsAbsentKeys: a key only one
// configuration has is a difference, found from either side; the pairs'
// order is none.
func TestFirstDifferenceIsAlphabeticalAndCountsAbsentKeys(t *testing.T) {
	a := report.Config{{Key: "d", Value: "2"}, {Key: "b", Value: "1"}}
	for _, c := range []struct {
		b    report.Config
		want string
		ok   bool
	}{
		{report.Config{{Key: "b", Value: "1"}, {Key: "d", Value: "2"}}, "", false},
		{report.Config{{Key: "b", Value: "1"}, {Key: "d", Value: "3"}}, "d", true},
		{report.Config{{Key: "b", Value: "1"}, {Key: "d", Value: "3"}, {Key: "a", Value: "x"}}, "a", true},
		{report.Config{{Key: "d", Value: "2"}}, "b", true},
		{report.Config{{Key: "b", Value: "1"}, {Key: "c"}, {Key: "d", Value: "2"}}, "c", true},
	} {
		for _, pair := range [][2]report.Config{{a, c.b}, {c.b, a}} {
			if k, ok := report.FirstDifference(pair[0], pair[1]); k != c.want || ok != c.ok {
				t.Errorf("report.FirstDifference(%v, %v) = %q, %v; want %q, %v", pair[0], pair[1], k, ok, c.want, c.ok)
			}
			if eq := pair[0].Equal(pair[1]); eq == c.ok {
				t.Errorf("(%v).Equal(%v) = %v", pair[0], pair[1], eq)
			}
		}
	}
}
