package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

var updateFixtures = flag.Bool("update", false, "rewrite the report fixtures in testdata/ from reporttest.Report")

// reportFixtures are the saved reports the command's tests read, each
// reporttest.Report (the report behind package render's golden files)
// with one difference at most, so that they are one report, not
// near-copies to edit by hand. They carry SchemaV1, the format before
// Settings, so that the command's tests also read what an older gcbench
// wrote.
var reportFixtures = map[string]func(r *report.Report){
	"report-a.json": func(*report.Report) {},
	// Another machine, the same configuration: report merges them.
	"report-b.json": func(r *report.Report) { r.Runs[0].Host.Hostname = "bench-b" },
	// Another configuration: report refuses to merge it with the others.
	"report-other-config.json": func(r *report.Report) {
		for i, kv := range r.Config {
			if kv.Key == "gcs" {
				r.Config[i].Value = "100"
			}
		}
	},
}

// TestReportFixturesAreReporttestsReport: testdata's saved reports are
// what reportFixtures makes of reporttest.Report, byte for byte;
// go test -run ReportFixtures -update rewrites them.
func TestReportFixturesAreReporttestsReport(t *testing.T) {
	for name, vary := range reportFixtures {
		r := reporttest.Report(t)
		r.Schema = report.SchemaV1
		vary(r)
		var b bytes.Buffer
		require.NoError(t, r.WriteJSON(&b))
		path := filepath.Join("testdata", name)
		if *updateFixtures {
			require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, string(want), b.String(), "%s is not what reportFixtures makes (go test ./cmd/gcbench -run ReportFixtures -update rewrites it)", path)
	}
}
