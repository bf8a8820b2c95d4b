package render

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pauseTableRows are the pause table's row labels, in order, as every
// format prints them.
var pauseTableRows = []string{"Stdev", "Avg", "TrimMean 10%", "TrimMean 25%",
	"Min", "Q1", "Q2", "Q3", "p90", "p99", "p99.9", "Max", "p-value", "n", "host-GC disturbed"}

// TestPauseTableHasTheTailRowsInEveryFormat: text, Markdown, CSV and HTML
// print the same rows in the same order, the extremes and the tail
// percentiles with an improvement in each comparison's column, and the
// note defines the percentiles once.
func TestPauseTableHasTheTailRowsInEveryFormat(t *testing.T) {
	r := fixtureReport(t)
	labels := func(re *regexp.Regexp, out []byte) []string {
		var got []string
		for _, m := range re.FindAllStringSubmatch(string(out), -1) {
			for _, want := range pauseTableRows {
				if m[1] == want {
					got = append(got, m[1])
				}
			}
		}
		return got
	}
	text := render(t, r, Text)
	pause, _, _ := strings.Cut(string(text), "pause anatomy") // the anatomy's rows are its own
	assert.Equal(t, pauseTableRows, labels(regexp.MustCompile(`(?m)^(\S+(?: \S+)*?)  `), []byte(pause)), "text")
	assert.Equal(t, pauseTableRows, labels(regexp.MustCompile(`(?m)^\| (.+?) +\|`), render(t, r, Markdown)), "Markdown")
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, r))
	assert.Equal(t, pauseTableRows, labels(regexp.MustCompile(`<th scope="row">([^<]+)</th>`), page.Bytes()), "HTML")

	recs, err := csv.NewReader(bytes.NewReader(render(t, r, CSV))).ReadAll()
	require.NoError(t, err)
	var got []string
	for _, rec := range recs[1:] {
		got = append(got, rec[0])
		if i := len(got) - 1; i < len(tableStatistics) {
			for c := 1; c <= 5; c++ { // three modes, two comparisons
				assert.NotEmpty(t, rec[c], "CSV %s column %s", rec[0], recs[0][c])
			}
		}
	}
	assert.Equal(t, pauseTableRows, got, "CSV")

	tab := humanTable(r, false)
	for _, row := range tab.Rows[:len(tableStatistics)] {
		for _, cell := range row[4:] {
			assert.Regexp(t, `^[+-]\d+\.\d%`, cell, "%s: an improvement in every comparison", row[0])
		}
	}
	assert.Equal(t, 1, strings.Count(string(text), "the smallest pause that at least"), "the percentiles' definition, once")
}
