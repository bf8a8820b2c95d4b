//go:build linux

package outfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func fcntlFlags(fd int) (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0) }

// renameNoReplace renames from to to unless to exists, in one step
// (renameat2 RENAME_NOREPLACE); on a file system that cannot, it falls
// back to linkNoReplace.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return linkNoReplace(from, to)
	}
	return err
}

// openFIFO opens the FIFO at path for writing, waiting for a reader until
// ctx ends. A blocking open would wait in the kernel, where no context or
// signal handler of the program's can end it: it opens without blocking,
// which fails with ENXIO while no process has the FIFO open for reading,
// and tries again every fifoPoll. The descriptor stays non-blocking, so
// that the runtime's poller waits out a full pipe and a write deadline
// can end that wait.
func openFIFO(ctx context.Context, path string) (*os.File, error) {
	for {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if !errors.Is(err, unix.ENXIO) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		select {
		case <-ctx.Done():
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("no reader: %w", ctx.Err())}
		case <-time.After(fifoPoll):
		}
	}
}

// accessWrite reports whether this process may open path for writing,
// by its effective ids, without opening it.
func accessWrite(path string) error {
	if err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS); err != nil {
		return &fs.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}
