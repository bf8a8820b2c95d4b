package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

// ScalingTable is the scaling table: the varying keys, the two ratios
// with their intervals, the p-value, then each counter for Base and New.
func ScalingTable(s *report.Scaling) *Table {
	t := &Table{Title: fmt.Sprintf("gcbench: scaling of %s against %s (%d points)", s.New, s.Base, len(s.Points))}
	if fixed := fixedConfig(s); len(fixed) > 0 {
		t.Facts = append(t.Facts, Fact{Key: "config", Value: strings.Join(fixed, " "), Verbatim: true})
	}
	head := append([]string{}, s.Keys...)
	ratio := s.New + "/" + s.Base
	head = append(head, "TrimMean 10% "+ratio, "95% CI", "median "+ratio, "95% CI", "p-value")
	for _, c := range s.Counters {
		head = append(head, c.Label+" "+s.Base, c.Label+" "+s.New)
	}
	t.Header = [][]string{head}
	for _, p := range s.Points {
		row := make([]string, 0, len(head))
		for _, k := range s.Keys {
			row = append(row, p.Value(k))
		}
		row = append(row, fmtRatio(p.TrimMean10.Value), fmtCI(p.TrimMean10.CI), fmtRatio(p.Median.Value), fmtCI(p.Median.CI),
			humanStyle.p(p.P))
		for _, c := range s.Counters {
			row = append(row, meanCell(p.BaseMeans, c.Key, "n/a", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }),
				meanCell(p.NewMeans, c.Key, "n/a", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Ratio = %s's statistic / %s's: below 1 means %s's pauses are shorter. "+
		"CI: percentile bootstrap, %d resamples. p-value: two-sided Mann–Whitney U. Counters: means per collection.",
		s.New, s.Base, s.New, stats.BootstrapResamples))
	for _, p := range s.Points {
		if p.Partial != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("PARTIAL: %s on %s: %s", p.Config, p.Host, p.Partial))
		}
	}
	if hosts := s.Hosts(); len(hosts) > 1 && !slices.Contains(s.Keys, report.HostKey) {
		t.Notes = append(t.Notes, fmt.Sprintf("The points were measured on %d machines, each point on one: %s.", len(hosts), strings.Join(hosts, ", ")))
	}
	return t
}

// fixedConfig lists the key=value pairs every point shares.
func fixedConfig(s *report.Scaling) []string {
	var out []string
	for _, kv := range s.Points[0].Config {
		if !slices.Contains(s.Keys, kv.Key) {
			out = append(out, kv.Key+"="+kv.Value)
		}
	}
	return out
}

func fmtRatio(v float64) string      { return strconv.FormatFloat(v, 'f', 3, 64) }
func fmtCI(ci stats.Interval) string { return "[" + fmtRatio(ci.Lo) + ", " + fmtRatio(ci.Hi) + "]" }

// WriteScaling renders the scaling table in f; JSON is the Scaling itself, and
// CSV has a machine's cells: each interval as two columns, numbers unit-
// free and not rounded for reading (ratios and p-values to 4 significant
// digits, counters to 3 decimals), every column name unique, and each
// row ending in its point's whole configuration and host.
func WriteScaling(w io.Writer, s *report.Scaling, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	case CSV:
		return scalingCSV(s).Write(w, f)
	}
	return ScalingTable(s).Write(w, f)
}

// scalingCSV is the scaling table for CSV.
func scalingCSV(s *report.Scaling) *Table {
	head := slices.Clone(s.Keys)
	ratio := s.New + "/" + s.Base
	head = append(head, "trimmean10 "+ratio, "trimmean10 ci lo", "trimmean10 ci hi", "median "+ratio, "median ci lo", "median ci hi", "p", "partial")
	for _, c := range s.Counters {
		head = append(head, c.Label+" "+s.Base, c.Label+" "+s.New)
	}
	head = append(head, "config", "host") // each row says what ran where, for a reader of the rows alone
	t := &Table{Header: [][]string{head}}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	for _, p := range s.Points {
		row := make([]string, 0, len(head))
		for _, k := range s.Keys {
			row = append(row, p.Value(k))
		}
		row = append(row, g(p.TrimMean10.Value), g(p.TrimMean10.CI.Lo), g(p.TrimMean10.CI.Hi),
			g(p.Median.Value), g(p.Median.CI.Lo), g(p.Median.CI.Hi), g(p.P), p.Partial)
		for _, c := range s.Counters {
			row = append(row, meanCell(p.BaseMeans, c.Key, "", machineStyle.value), meanCell(p.NewMeans, c.Key, "", machineStyle.value))
		}
		t.Rows = append(t.Rows, append(row, p.Config.String(), p.Host))
	}
	return t
}

// meanCell is means[key] formatted, or absent where the run did not count
// that counter (the Native backend's futex calls).
func meanCell(means map[string]float64, key, absent string, format func(float64) string) string {
	if v, ok := means[key]; ok {
		return format(v)
	}
	return absent
}
