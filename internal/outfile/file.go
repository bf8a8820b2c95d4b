package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A File is an output being written. Bytes go to a temporary file beside
// the destination; Commit puts them in place, Abort drops them. Exactly one
// of the two must be called; after either, the other does nothing.
type File struct {
	path string // as given
	dest string // what Commit replaces: path with links resolved
	temp string // the temporary file; "" when writing a device or FIFO in place
	f    *os.File
	set  *Set
	done bool
}

// Create starts an output to path (see the package documentation for what
// happens to links, devices and modes). set, if non-nil, tracks the
// temporary file until Commit or Abort.
func Create(path string, set *Set) (*File, error) {
	dest, err := resolve(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(dest)
	switch {
	case err == nil && fi.IsDir():
		return nil, &fs.PathError{Op: "create", Path: path, Err: ErrDirectory}
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(dest, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{path: path, dest: dest, f: f}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, temp, err := createTemp(filepath.Dir(dest), "."+filepath.Base(dest))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	set.add(temp)
	if fi != nil {
		// Keep the replaced file's permissions; a failure here only
		// leaves the umask's, so it is not worth failing the output for.
		_ = f.Chmod(fi.Mode().Perm())
	}
	return &File{path: path, dest: dest, temp: temp, f: f, set: set}, nil
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
	if err == nil {
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
	f.f.Close()
	if f.temp != "" {
		os.Remove(f.temp)
		f.set.forget(f.temp)
	}
}

// Write writes path atomically with what write produces: nothing reaches
// path unless write and every step of putting its bytes in place succeed.
func Write(path string, set *Set, write func(io.Writer) error) error {
	f, err := Create(path, set)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
