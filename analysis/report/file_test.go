package report_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

// writeReport saves the fixed report in dir as name and returns its path.
func writeReport(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reporttest.Report(t).WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadFilesSetsEachSource(t *testing.T) {
	dir := t.TempDir()
	names := []string{writeReport(t, dir, "a.json"), writeReport(t, dir, "b.json")}
	reports, err := report.ReadFiles(context.Background(), names)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reports {
		if r.Source != names[i] {
			t.Errorf("report %d: Source %q, want %q", i, r.Source, names[i])
		}
	}
}

func TestReadFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema":"other"}`), 0o666); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	for _, tc := range []struct {
		name string
		is   error
	}{{bad, report.ErrSchema}, {missing, fs.ErrNotExist}} {
		_, err := report.ReadFile(context.Background(), tc.name)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("ReadFile(%s) = %v, want an error naming the file, wrapping %v", tc.name, err, tc.is)
		}
	}
}

// TestReadFilesStopsWhenCancelled: a stop between files returns the
// context's cause and reads no further file (the missing one would be an
// error of its own).
func TestReadFilesStopsWhenCancelled(t *testing.T) {
	cause := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := report.ReadFiles(ctx, []string{filepath.Join(t.TempDir(), "missing.json")})
	if !errors.Is(err, cause) {
		t.Fatalf("ReadFiles after a stop = %v, want its cause", err)
	}
}
