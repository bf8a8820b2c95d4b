package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeepInTempNamesTheFileAfterThePath(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	name, err := KeepInTemp("gcbench", "/no/such/dir/report.csv", func(w io.Writer) error {
		_, err := io.WriteString(w, "a,b\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(name)
	if filepath.Dir(name) != os.TempDir() || !strings.HasPrefix(base, "gcbench-report-") || !strings.HasSuffix(base, ".csv") {
		t.Errorf("kept in %s", name)
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != "a,b\n" {
		t.Errorf("kept %q, %v", b, err)
	}
}

func TestKeepInTempRemovesWhatItCouldNotComplete(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	boom := errors.New("boom")
	if _, err := KeepInTemp("gcbench", "r.txt", func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the writer's", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

func TestKeepInTempFitsALongName(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	name, err := KeepInTemp("gcbench", strings.Repeat("x", 300)+".json", func(io.Writer) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(filepath.Base(name)) > nameMax || !strings.HasSuffix(name, ".json") {
		t.Errorf("kept in %s", name)
	}
}
