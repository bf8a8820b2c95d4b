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

// TestKeepAfterNamesTheFileKept: the failure is kept in the error, which
// names the file holding the output; an output that cannot be kept
// either leaves the failure as it was.
func TestKeepAfterNamesTheFileKept(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	failed := errors.New("--out /full/r.json: no space left on device")
	err := KeepAfter(failed, "gcbench", "/full/r.json", func(w io.Writer) error {
		_, err := io.WriteString(w, "{}")
		return err
	})
	var kept *KeptError
	if !errors.As(err, &kept) || !errors.Is(err, failed) {
		t.Fatalf("err = %v, want a *KeptError wrapping the failure", err)
	}
	if b, rerr := os.ReadFile(kept.Path); rerr != nil || string(b) != "{}" {
		t.Errorf("kept %q, %v", b, rerr)
	}
	if want := failed.Error() + "; the output is saved in " + kept.Path + " instead"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	if err := KeepAfter(failed, "gcbench", "r.json", func(io.Writer) error { return nil }); err != failed {
		t.Errorf("nowhere to keep it: err = %v, want the failure itself", err)
	}
}
