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

	"github.com/gcbench/gcbench/internal/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitBound is how long a test waits for its FIFO's other end: far past
// what the few bytes take, so that only a hang reaches it.
const waitBound = 10 * time.Second

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
	if wf := testwait.Recv(t, w, waitBound, "the FIFO writer's open"); wf != nil {
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

// TestOpenLimitedRefusesALargeFileBeforeReadingIt: a regular file over
// the limit is refused at the open, naming the file and the limit; one at
// the limit reads whole. Before, a 1 GB settings file was read whole (2 GB
// resident, 20 s) before it was refused.
func TestOpenLimitedRefusesALargeFileBeforeReadingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenLimited(context.Background(), path, 9)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Name != path || tl.Limit != 9 {
		t.Fatalf("got %v, want a *TooLargeError for %s at 9 bytes", err, path)
	}
	f, err := OpenLimited(context.Background(), path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "0123456789" {
		t.Errorf("read %q, %v", b, err)
	}
}

// TestOpenLimitedStopsAStreamAtTheLimit: a FIFO's stream past the limit
// fails the read that passes it, having read no more than the limit.
func TestOpenLimitedStopsAStreamAtTheLimit(t *testing.T) {
	path := fifo(t)
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = w.Write([]byte("0123456789"))
		w.Close()
		done <- err
	}()
	f, err := OpenLimited(context.Background(), path, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if !errors.Is(err, ErrTooLarge) || len(b) > 4 {
		t.Errorf("read %q, %v; want at most 4 bytes and ErrTooLarge", b, err)
	}
	if err := testwait.Recv(t, done, waitBound, "the FIFO writer's return"); err != nil {
		t.Fatal(err)
	}
}
