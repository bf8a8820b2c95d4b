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
	"github.com/gcbench/gcbench/internal/infile"
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

// TestReadFileRefusesAFileLargerThanAReport: over MaxFileSize, a file is
// refused before it is read (a sparse file: nothing is written).
func TestReadFileRefusesAFileLargerThanAReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(report.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = report.ReadFile(context.Background(), path)
	if !errors.Is(err, infile.ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %v, want infile.ErrTooLarge naming %s", err, path)
	}
}

// TestReadJSONRefusesUnknownKeys: a key no report has is refused, naming
// it; one of a newer schema says which schema instead.
func TestReadJSONRefusesUnknownKeys(t *testing.T) {
	var b strings.Builder
	if err := reporttest.Report(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	extra := "{\n  \"surprise\": 1," + doc[1:]
	_, err := report.ReadJSON(strings.NewReader(extra))
	if !errors.Is(err, report.ErrSchema) || !strings.Contains(err.Error(), `"surprise"`) {
		t.Errorf("unknown top-level key: got %v, want ErrSchema naming it", err)
	}
	newer := strings.Replace(extra, report.Schema, "gcbench/v99", 1)
	_, err = report.ReadJSON(strings.NewReader(newer))
	if !errors.Is(err, report.ErrSchema) || !strings.Contains(err.Error(), "gcbench/v99") {
		t.Errorf("newer schema: got %v, want ErrSchema naming the schema", err)
	}
}
