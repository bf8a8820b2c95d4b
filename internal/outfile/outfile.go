// Package outfile writes a program's output files so that a user's files
// are never destroyed: an output is written to a temporary file beside its
// destination, synced, and renamed over the destination only when complete.
//
// The guarantees, for a destination D:
//
//   - Until Commit, D is exactly as it was; after a failed or aborted write
//     it still is. The only path the package ever removes is a temporary
//     file it created itself (O_EXCL, a name of its own beside D).
//   - A symbolic link D is followed: the link stays, its final target is
//     replaced atomically. A dangling link's target is created.
//   - D that is not a regular file (a character device such as /dev/null
//     or /dev/stdout, a FIFO) cannot be renamed over without destroying it,
//     so it is written in place; such a write is not atomic.
//   - A new file gets mode 0666 less the umask, as os.Create gives; a
//     replaced file keeps its mode.
//
// Check and Distinct let a program refuse bad output paths before it does
// hours of work rather than after.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// Errors returned by Check and Distinct wrap one of these; test with
// errors.Is.
var (
	// ErrNotWritable: the destination, or its directory, cannot be written.
	ErrNotWritable = errors.New("cannot be written")
	// ErrDirectory: the destination is a directory.
	ErrDirectory = errors.New("is a directory")
	// ErrSameFile: two outputs, or an output and an input, name one file.
	ErrSameFile = errors.New("names the same file")
)

// maxLinks bounds how many symbolic links resolve follows, as the kernel's
// MAXSYMLINKS (40) bounds path resolution.
const maxLinks = 40

// resolve follows path's final component through symbolic links until it
// names something that is not a link, or nothing. It returns that path:
// the file an output to path must replace or create.
func resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	return "", fmt.Errorf("%s: %w", path, syscall.ELOOP)
}

// Check reports whether path can take an output, without changing it: the
// file (or the final target of a link) is not a directory and can be
// opened for writing, or does not exist and its directory exists and
// accepts new files. The error wraps ErrDirectory or ErrNotWritable and
// the underlying cause.
func Check(path string) error {
	if path == "" {
		return fmt.Errorf("empty path: %w", ErrNotWritable)
	}
	dest, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	fi, err := os.Stat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkDir(filepath.Dir(dest))
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	case fi.IsDir():
		return ErrDirectory
	}
	// O_NONBLOCK: opening a FIFO nobody reads yet must not hang; no
	// O_TRUNC: the check must not change the file.
	f, err := os.OpenFile(dest, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil && !errors.Is(err, syscall.ENXIO) { // ENXIO: a FIFO without a reader yet
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	if f != nil {
		f.Close()
	}
	if fi.Mode().IsRegular() {
		return checkDir(filepath.Dir(dest)) // the rename needs a temporary file beside it
	}
	return nil
}

// checkDir reports whether dir exists and accepts a new file, by creating
// one of ours and removing it.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: directory %s does not exist: %w", ErrNotWritable, dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrNotWritable, dir)
	}
	f, name, err := createTemp(dir, ".gcbench-check")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	f.Close()
	os.Remove(name)
	return nil
}

// A Path is one file a program reads or writes, with the name the user
// knows it by (a flag such as "--out", or "input").
type Path struct {
	Name string
	Path string
}

// Distinct returns an error wrapping ErrSameFile if any two of the paths
// (two outputs, an output and an input, or an input given twice) are the
// same file: the same path after links are resolved, or the same existing
// file under two names (hard links). Empty paths are ignored.
func Distinct(outputs, inputs []Path) error {
	type seen struct {
		Path
		key string
		fi  fs.FileInfo
	}
	var all []seen
	for _, p := range append(append([]Path{}, outputs...), inputs...) {
		if p.Path == "" {
			continue
		}
		key, fi := identity(p.Path)
		cur := seen{p, key, fi}
		for _, prev := range all {
			if prev.key == cur.key || (prev.fi != nil && cur.fi != nil && os.SameFile(prev.fi, cur.fi)) {
				return fmt.Errorf("%s %s and %s %s %w", prev.Name, prev.Path, cur.Name, cur.Path, ErrSameFile)
			}
		}
		all = append(all, cur)
	}
	return nil
}

// identity returns a comparable key for path (absolute, links resolved)
// and, when the file exists, its FileInfo.
func identity(path string) (string, fs.FileInfo) {
	dest, err := resolve(path)
	if err != nil {
		dest = path
	}
	if abs, err := filepath.Abs(dest); err == nil {
		dest = abs
	}
	fi, err := os.Stat(dest)
	if err != nil {
		fi = nil
	}
	return filepath.Clean(dest), fi
}

// A Set tracks the temporary files of the writes in progress, so that a
// program that must exit at once (a second Ctrl-C) can remove them. Its
// zero value is ready; it is safe for concurrent use.
type Set struct {
	mu    sync.Mutex
	temps map[string]bool
}

func (s *Set) add(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.temps == nil {
		s.temps = map[string]bool{}
	}
	s.temps[name] = true
}

func (s *Set) forget(name string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.temps, name)
}

// RemoveTemps removes every temporary file of a write still in progress.
// The writes themselves then fail; their destinations are untouched.
func (s *Set) RemoveTemps() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.temps {
		os.Remove(name)
	}
	clear(s.temps)
}

// tempSeq and the process id make temporary names unique; O_EXCL makes a
// name that someone else's file already has a retry, never a takeover.
var tempSeq atomic.Uint64

func createTemp(dir, base string) (*os.File, string, error) {
	for {
		name := filepath.Join(dir, base+".tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempSeq.Add(1), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
}
