package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A File is an output being written. Bytes go to a temporary file beside
// the destination; Commit puts them in place, Abort drops them. Exactly one
// of the two must be called; after either, the other does nothing.
type File struct {
	path      string // as given
	dest      string // what Commit replaces: path with links resolved
	temp      string // the temporary file; "" when writing a device, FIFO or descriptor in place
	noReplace bool   // CreateNew: Commit fails rather than replace a file that appeared meanwhile
	f         *os.File
	set       *Set
	done      bool
	stopWatch func() bool // a FIFO's: stops the watch that ends a stalled write when ctx ends
}

// Create starts an output to path (see the package documentation for what
// happens to links, devices, FIFOs, descriptors and modes). set, if
// non-nil, tracks the temporary file until Commit or Abort. It is
// CreateContext with a context that never ends.
func Create(path string, set *Set) (*File, error) {
	return create(context.Background(), path, set, false)
}

// CreateContext is Create that gives up, with an error wrapping ctx.Err(),
// if ctx ends while it waits for a FIFO's reader, the one wait Create has.
func CreateContext(ctx context.Context, path string, set *Set) (*File, error) {
	return create(ctx, path, set, false)
}

// CreateNew is Create for a path that must not hold a file yet, such as a
// result one of several concurrent runs may save: if the destination
// exists, now or when Commit would put the new file in place, the error
// wraps fs.ErrExist and the existing file is left as it is.
func CreateNew(path string, set *Set) (*File, error) {
	return create(context.Background(), path, set, true)
}

// fifoPoll is how often an output to a FIFO looks for a reader.
const fifoPoll = 20 * time.Millisecond

// fifoGrace is how long writes to a FIFO may still take once the context
// of CreateContext has ended: a reader that reads has the output by then.
const fifoGrace = time.Second

func create(ctx context.Context, path string, set *Set, noReplace bool) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if t.fd >= 0 {
		return writeDescriptor(path, t.fd, noReplace)
	}
	fi, err := os.Stat(t.path)
	switch {
	case err == nil && noReplace:
		return nil, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "create", Path: path, Err: ErrDirectory}
	case err == nil && fi.Mode()&fs.ModeNamedPipe != 0:
		f, err := openFIFO(ctx, t.path)
		if err != nil {
			return nil, err
		}
		// A reader that has opened the FIFO and does not read would hold a
		// write forever: once ctx ends, writes get fifoGrace more to finish.
		stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Now().Add(fifoGrace)) })
		return &File{path: path, dest: t.path, f: f, stopWatch: stop}, nil
	case err == nil && (!fi.Mode().IsRegular() || t.descriptor):
		// A device in place; or another process's descriptor open on a
		// regular file, appended to: its offset is not ours to share, and
		// writing from the start would overwrite what it holds.
		flags := os.O_WRONLY
		if fi.Mode().IsRegular() {
			flags |= os.O_APPEND
		}
		f, err := os.OpenFile(t.path, flags, 0)
		if err != nil {
			return nil, err
		}
		return &File{path: path, dest: t.path, f: f}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, temp, err := createTemp(filepath.Dir(t.path), "."+filepath.Base(t.path))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	set.add(temp)
	if fi != nil {
		// Keep the replaced file's permissions; a failure here only
		// leaves the umask's, so it is not worth failing the output for.
		_ = f.Chmod(fi.Mode().Perm())
	}
	return &File{path: path, dest: t.path, temp: temp, noReplace: noReplace, f: f, set: set}, nil
}

// writeDescriptor writes in place through a duplicate of this process's
// descriptor fd, which shares its offset and its O_APPEND.
func writeDescriptor(path string, fd int, noReplace bool) (*File, error) {
	if noReplace {
		return nil, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	if err := checkDescriptor(fd); err != nil {
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: path, Err: err}
	}
	syscall.CloseOnExec(dup)
	return &File{path: path, dest: path, f: os.NewFile(uintptr(dup), path)}, nil
}

// Name returns the destination as it was given to Create.
func (f *File) Name() string { return f.path }

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Commit syncs the written bytes and renames them over the destination.
// On any error the destination is unchanged and the temporary file gone.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.temp == "" {
		return f.closeInPlace()
	}
	defer f.set.forget(f.temp)
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && f.noReplace {
		err = renameNoReplace(f.temp, f.dest)
	} else if err == nil {
		err = os.Rename(f.temp, f.dest)
	}
	if err != nil {
		os.Remove(f.temp)
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	syncDir(filepath.Dir(f.dest))
	return nil
}

func (f *File) closeInPlace() error {
	if f.stopWatch != nil {
		f.stopWatch()
	}
	if err := f.f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable. A failure is ignored: the rename
// itself has happened, and some file systems cannot sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Abort drops what was written: the temporary file is removed and the
// destination stays as it was. A device or FIFO written in place keeps
// what it was given.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.stopWatch != nil {
		f.stopWatch()
	}
	f.f.Close()
	if f.temp != "" {
		os.Remove(f.temp)
		f.set.forget(f.temp)
	}
}

// Write writes path atomically with what write produces: nothing reaches
// path unless write and every step of putting its bytes in place succeed.
// It is WriteContext with a context that never ends.
func Write(path string, set *Set, write func(io.Writer) error) error {
	return writeWith(Create, path, set, write)
}

// WriteContext is Write through CreateContext: it gives up if ctx ends
// while it waits for a FIFO's reader.
func WriteContext(ctx context.Context, path string, set *Set, write func(io.Writer) error) error {
	return writeWith(func(path string, set *Set) (*File, error) { return CreateContext(ctx, path, set) }, path, set, write)
}

// WriteNew is Write through CreateNew: it never replaces a file, and its
// error wraps fs.ErrExist if path holds one, or comes to hold one while
// write runs.
func WriteNew(path string, set *Set, write func(io.Writer) error) error {
	return writeWith(CreateNew, path, set, write)
}

// linkNoReplace puts from at to unless to exists, by a hard link (which
// fails on an existing name) and the removal of from; from is one of our
// temporary files. A file system without hard links gets a check and a
// rename, which a file created between the two can lose to.
func linkNoReplace(from, to string) error {
	err := os.Link(from, to)
	if err == nil {
		return os.Remove(from)
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(to); serr == nil {
		return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
	}
	return os.Rename(from, to)
}

func writeWith(create func(string, *Set) (*File, error), path string, set *Set, write func(io.Writer) error) error {
	f, err := create(path, set)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
