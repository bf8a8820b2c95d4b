package render

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
)

// verdictReport is a run of serial, perjob and batch whose batch pauses
// are perjob's scaled by scale: 0.9 is a clear 10% improvement, 1 none.
func verdictReport(t *testing.T, scale float64) *report.Report {
	t.Helper()
	const n = 300
	serial, perjob, batch := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		v := 1000 + float64((i*37)%101) // a spread of values, not sorted
		serial[i], perjob[i], batch[i] = 2*v, v, v*scale
	}
	run, err := report.NewRun(report.Host{Hostname: "h", Cores: 2, GOMAXPROCS: 2}, []report.ModeInput{
		{Name: "serial", Pauses: serial}, {Name: "perjob", Pauses: perjob}, {Name: "batch", Pauses: batch}})
	require.NoError(t, err)
	return report.NewReport("minor-collection pause", report.Config{{Key: "gcs", Value: "300"}}, run)
}

func TestVerdictLineStatesASignificantDifference(t *testing.T) {
	v, ok := verdictReport(t, 0.9).Runs[0].Verdict()
	require.True(t, ok)
	assert.Equal(t, "batch vs perjob: pauses 10.0% shorter (TrimMean 10%, 95% CI 9.6–10.4%, p < 0.001, 300 collections each)", VerdictLine(v))

	v, _ = verdictReport(t, 1.1).Runs[0].Verdict()
	assert.Regexp(t, `^batch vs perjob: pauses 10\.0% longer \(TrimMean 10%, 95% CI -1\d\.\d–-\d\.\d%, p < 0\.001, 300 collections each\)$`, VerdictLine(v))
}

func TestVerdictLineSaysNoSignificantDifference(t *testing.T) {
	v, ok := verdictReport(t, 1).Runs[0].Verdict()
	require.True(t, ok)
	assert.Equal(t, "batch vs perjob: no significant difference (p = 1)", VerdictLine(v))

	v.Delta.P, v.Delta.Significant = 0.927, false
	assert.Equal(t, "batch vs perjob: no significant difference (p = 0.93)", VerdictLine(v))
}

func TestVerdictOfOneModeIsNone(t *testing.T) {
	run, err := report.NewRun(report.Host{}, []report.ModeInput{{Name: "batch", Pauses: []float64{1, 2, 3}}})
	require.NoError(t, err)
	_, ok := run.Verdict()
	assert.False(t, ok)
}

// TestVerdictLeadsTextMarkdownAndHTML: each human format states the
// verdict before the first table row.
func TestVerdictLeadsTextMarkdownAndHTML(t *testing.T) {
	r := verdictReport(t, 0.9)
	v, _ := r.Runs[0].Verdict()
	line := VerdictLine(v)
	for _, f := range []Format{Text, Markdown} {
		out := string(render(t, r, f))
		at, row := strings.Index(out, line), strings.Index(out, "Stdev")
		assert.True(t, at >= 0 && at < row, "%v: the verdict is not before the table:\n%s", f, out)
	}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	page := b.String()
	at, row := strings.Index(page, `<p class="lead"><strong>`+html.EscapeString(line)), strings.Index(page, "<table>")
	assert.True(t, at >= 0 && at < row, "HTML: the verdict is not before the table")
	var c bytes.Buffer
	require.NoError(t, WriteCSV(&c, r))
	assert.NotContains(t, c.String(), "shorter", "CSV holds rows only")
}
