package infile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return path
}

func TestReadsAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenReader(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "hello" {
		t.Errorf("read %q, %v", b, err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}

func TestMissingFileIsAPathError(t *testing.T) {
	_, err := OpenReader(context.Background(), filepath.Join(t.TempDir(), "none"))
	if pe := (*os.PathError)(nil); !errors.As(err, &pe) {
		t.Errorf("err = %v, want a *PathError", err)
	}
}

// TestStopEndsTheWaitForAWriter: opening a FIFO nobody writes to returns
// when ctx ends; the open left behind finishes when a writer comes.
func TestStopEndsTheWaitForAWriter(t *testing.T) {
	path := fifo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Open(ctx, path); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's", err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0) // lets the background open finish and close its file
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// TestStopEndsAWaitingRead: a read waiting for a FIFO's writer's data
// returns the context's error when ctx ends.
func TestStopEndsAWaitingRead(t *testing.T) {
	path := fifo(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(path, os.O_WRONLY, 0)
		w <- f
	}()
	f, err := OpenReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if wf := <-w; wf != nil {
		defer wf.Close()
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("a read after the stop: err = %v, want context.Canceled", err)
	}
}
