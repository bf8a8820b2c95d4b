package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixtureReport is the report behind every golden file.
func fixtureReport(t testing.TB) *report.Report {
	t.Helper()
	return reporttest.Report(t)
}

// rederived is r read back from its JSON, which recomputes its summaries
// and comparisons from the samples (after a test edited them).
func rederived(t *testing.T, r *report.Report) *report.Report {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	return back
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
		t.Errorf("%s differs from the golden file (go test ./render -run %s -update rewrites it)\ngot:\n%s\nwant:\n%s",
			path, t.Name(), got, want)
	}
}
