package render

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableMarksImprovementsThatAreNotSignificant: in a run whose batch
// and perjob pauses are alike, every batch-vs-perjob improvement carries
// the mark and the note explains it once; batch vs serial, significant,
// carries none; a run significant throughout has neither mark nor note;
// CSV keeps bare numbers (its p-value row says the rest).
func TestTableMarksImprovementsThatAreNotSignificant(t *testing.T) {
	r := verdictReport(t, 1)
	tab := humanTable(r, false)
	for _, row := range tab.Rows[:len(tab.Rows)-3] { // the statistics
		assert.False(t, strings.HasSuffix(row[4], notSignificantMark), "%s: batch vs serial is significant: %q", row[0], row[4])
		assert.True(t, strings.HasSuffix(row[5], notSignificantMark), "%s: batch vs perjob is not significant: %q", row[0], row[5])
	}
	text := string(render(t, r, Text))
	assert.Equal(t, 1, strings.Count(text, notSignificantNote), text)
	md := string(render(t, r, Markdown))
	assert.Contains(t, md, "| +0.0%"+notSignificantMark+" |")
	assert.Contains(t, md, notSignificantNote)
	var c bytes.Buffer
	require.NoError(t, WriteCSV(&c, r))
	assert.NotContains(t, c.String(), notSignificantMark)

	sig := string(render(t, verdictReport(t, 0.9), Text))
	assert.NotContains(t, sig, notSignificantMark)
}

// TestEveryCSVHasUniqueColumnsAndSaysWhatRanWhere: pandas renames a
// repeated column ("ci lo.1"), so no CSV repeats one; each ends its
// records in the configuration and host.
func TestEveryCSVHasUniqueColumnsAndSaysWhatRanWhere(t *testing.T) {
	merged := fixtureReport(t)
	merged.Runs = append(merged.Runs, merged.Runs[0]) // two runs of one host: "bench-a #1", "bench-a #2"
	var anat bytes.Buffer
	require.NoError(t, WriteAnatomyCSV(&anat, anatomyReport(t)))
	for name, out := range map[string][]byte{"pause": render(t, fixtureReport(t), CSV), "merged": render(t, merged, CSV), "anatomy": anat.Bytes()} {
		recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
		require.NoError(t, err, name)
		head := recs[0]
		seen := map[string]bool{}
		for _, h := range head {
			assert.False(t, seen[h], "%s: column %q twice in %q", name, h, head)
			seen[h] = true
		}
		require.Equal(t, []string{"config", "host"}, head[len(head)-2:], name)
		for _, rec := range recs[1:] {
			assert.NotEmpty(t, rec[len(rec)-2], "%s: no configuration", name)
			assert.Contains(t, rec[len(rec)-1], "cores", "%s: no host", name)
		}
	}
}
