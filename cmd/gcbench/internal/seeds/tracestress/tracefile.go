package tracestress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gcbench/gcbench/trace"
)

// A trace-stress run's file: created so that no path outlives the run,
// written only while the run's context lives, read back to count events.

// ctxCheckEvents is how many events countEvents reads between checks of
// its context: at most a few MiB of trace, a few milliseconds.
const ctxCheckEvents = 1 << 12

// countEvents reads a complete trace to its end and returns the events
// read and lost. A truncated trace is an error: Compare's sessions
// always end theirs. It returns ctx.Err() within ctxCheckEvents events of
// ctx being done.
func countEvents(ctx context.Context, r io.Reader) (read, lost uint64, err error) {
	rd, err := trace.Open(r)
	if err != nil {
		return 0, 0, err
	}
	for i := 0; ; i++ {
		if i%ctxCheckEvents == 0 && ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		if _, err := rd.Next(); err != nil {
			if err != io.EOF {
				return 0, 0, err
			}
			if err := rd.Truncation(); err != nil {
				return 0, 0, err
			}
			read, lost = rd.Totals()
			return read, lost, nil
		}
	}
}

// ctxWriter fails every write once ctx is done, so that a cancelled run's
// session drains its buffers (which releases them) without writing the
// rest of them to disk first.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

// Write writes p to the underlying writer while ctx lives, and otherwise
// returns ctx.Err() without writing.
func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// tempFile is one run's trace file.
type tempFile struct {
	*os.File
	created os.FileInfo // the file createTemp made, to recognise it at its path
	linked  bool        // its path still exists: the system could not unlink it while open
}

// createTemp creates a run's trace file in dir with os.CreateTemp and
// unlinks it at once if the system allows removing an open file (Unix):
// the run keeps using it through its descriptor, and no path is left
// behind even if the process is killed. Elsewhere close removes it.
func createTemp(dir string) (*tempFile, error) {
	f, err := os.CreateTemp(dir, "gcbench-trace-stress-*.gctrace")
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	created, err := f.Stat()
	if err != nil {
		// Without its identity the path cannot be checked later; it was
		// created exclusively a moment ago, so remove it now.
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("trace file: %w", err)
	}
	t := &tempFile{File: f, created: created, linked: true}
	t.linked = t.removeIfOurs() != nil
	return t, nil
}

// removeIfOurs removes the file's path only if it still names the file
// createTemp made, so that a path someone else has since put there is
// never removed.
func (t *tempFile) removeIfOurs() error {
	now, err := os.Lstat(t.Name())
	if err != nil {
		return err
	}
	if !os.SameFile(now, t.created) {
		return fmt.Errorf("%s no longer names the trace file this run created; left in place", t.Name())
	}
	return os.Remove(t.Name())
}

// close closes the file and removes its path if it still has one.
func (t *tempFile) close() error {
	err := t.File.Close()
	if t.linked {
		if rerr := t.removeIfOurs(); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("remove trace file: %w", rerr))
		}
	}
	if err != nil {
		return fmt.Errorf("trace file: %w", err)
	}
	return nil
}
