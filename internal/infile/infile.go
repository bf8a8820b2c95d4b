// Package infile opens a program's input files so that a stop — a
// cancelled context, which a signal handler cancels — ends any wait on
// them: opening a FIFO waits for a writer to open it, and a read from a
// pipe or FIFO waits for its writer's data, both possibly forever.
//
// It is the input side of package outfile, whose writes to a FIFO give up
// the same way.
package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gcbench/gcbench/internal/bytesize"
)

// Open opens name for reading, or returns ctx's error if ctx ends first.
// An open still in progress then goes on in the background, and a file
// it opens after all is closed.
func Open(ctx context.Context, name string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// Reader stops a long read when Ctx ends: every Read checks Ctx first,
// and a read that fails after Ctx ended (its file closed under it, as
// File does) returns Ctx's error instead of the close's.
type Reader struct {
	Ctx context.Context
	R   io.Reader
}

func (c Reader) Read(p []byte) (int, error) {
	if err := c.Ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.R.Read(p)
	if err != nil && c.Ctx.Err() != nil {
		return n, c.Ctx.Err()
	}
	return n, err
}

// A File is an input opened by OpenReader: reading it returns ctx's
// error once ctx ends, at once even when a read is waiting for a writer,
// because the end of ctx closes the file (the runtime's poller then
// returns the waiting read).
type File struct {
	Reader
	f    *os.File
	stop func() bool
}

// OpenReader opens name for reading under ctx, as Open does.
func OpenReader(ctx context.Context, name string) (*File, error) {
	f, err := Open(ctx, name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	return &File{Reader: Reader{ctx, f}, f: f, stop: context.AfterFunc(ctx, func() { f.Close() })}, nil
}

// ErrTooLarge is wrapped by every *TooLargeError.
var ErrTooLarge = errors.New("input too large")

// A TooLargeError is OpenLimited's about an input larger than its limit.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %s an input of its kind may be", e.Name, bytesize.Format(e.Limit))
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// OpenLimited is OpenReader for an input of at most limit bytes, such as
// a settings file that is read whole: a regular file larger than that is
// refused before anything is read, and a stream (a pipe, a FIFO, a file
// that grows) fails the read that would pass the limit, so that no more
// than limit bytes are ever read. The error is a *TooLargeError.
func OpenLimited(ctx context.Context, name string, limit int64) (*File, error) {
	f, err := OpenReader(ctx, name)
	if err != nil {
		return nil, err
	}
	tooLarge := &TooLargeError{Name: name, Limit: limit}
	if fi, err := f.f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		f.Close()
		return nil, tooLarge
	}
	f.R = &limitReader{r: f.f, left: limit, err: tooLarge}
	return f, nil
}

// limitReader reads at most left more bytes from r; a read past them
// returns err.
type limitReader struct {
	r    io.Reader
	left int64
	err  error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var probe [1]byte // at the limit: is there more?
		if n, err := l.r.Read(probe[:]); n == 0 {
			return 0, err
		}
		return 0, l.err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// Close closes the file.
func (f *File) Close() error {
	f.stop()
	return f.f.Close()
}
