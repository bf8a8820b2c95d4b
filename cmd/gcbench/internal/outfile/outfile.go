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
//   - D that is not a regular file (a character device such as /dev/null,
//     a FIFO) cannot be renamed over without destroying it, so it is
//     written in place; such a write is not atomic. A FIFO is waited on
//     until a reader opens it, and CreateContext and WriteContext give up
//     that wait when their context ends, and a write the reader does not
//     take a second after it.
//   - D that names one of the process's open descriptors (/dev/stdout,
//     /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written through that
//     descriptor, whatever it is open on: a file the shell opened for
//     appending is appended to, never replaced. Another process's
//     descriptor (/proc/PID/fd/N) open on a regular file is appended to.
//   - A new file gets mode 0666 less the umask, as os.Create gives; a
//     replaced file keeps its mode.
//
// Check and Distinct let a program refuse bad output paths before it does
// hours of work rather than after; KeepAfter keeps an output that could
// not be put in place after the work in the temporary directory, and its
// error says where.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
)

// Errors returned by Check and Distinct wrap one of these; test with
// errors.Is.
var (
	// ErrNotWritable: the destination, or its directory, cannot be written.
	ErrNotWritable = errors.New("cannot be written")
	// ErrDirectory: the destination is a directory.
	ErrDirectory = errors.New("is a directory")
	// ErrSameFile: two outputs, or an output and an input, name one file.
	ErrSameFile = errors.New("the same file")
)

// maxLinks bounds how many symbolic links resolve follows, as the kernel's
// MAXSYMLINKS (40) bounds path resolution.
const maxLinks = 40

// target is where an output to a path goes.
type target struct {
	// path is the file an output must replace or create (the path given,
	// its final component's links followed), or, for a descriptor entry,
	// that entry.
	path string
	// fd is one of this process's open descriptors the path names
	// (/dev/stdout, /dev/fd/N, /proc/self/fd/N), or -1.
	fd int
	// descriptor: path is an entry of a process's descriptor directory
	// (fd names it if the process is this one).
	descriptor bool
}

// fdDir matches the directories whose entries are a process's open file
// descriptors; /dev/fd and /dev/stdout lead there. Their entries look like
// symbolic links and are not: one open on a pipe names no file, and one a
// shell opened for appending (>> log) must be written through the
// descriptor, or the file would be replaced, or overwritten from its
// start, where the user asked for an append.
var fdDir = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd$`)

// resolve follows path's final component through symbolic links until it
// names something that is not a link, or nothing, or an open descriptor.
// A relative link is read from the directory the link is really in, as
// the kernel reads it, not from the path that reached it.
func resolve(path string) (target, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{path: p, fd: -1}, nil
		}
		if err != nil {
			return target{}, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return target{path: p, fd: -1}, nil
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return target{}, err
		}
		if m := fdDir.FindStringSubmatch(dir); m != nil {
			return descriptorTarget(filepath.Join(dir, filepath.Base(p)), m[1]), nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return target{}, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return target{}, fmt.Errorf("%s: %w", path, syscall.ELOOP)
}

// descriptorTarget is the descriptor entry path of process pid ("self",
// "thread-self" or a number).
func descriptorTarget(path, pid string) target {
	t := target{path: path, fd: -1, descriptor: true}
	if pid == "self" || pid == "thread-self" || pid == strconv.Itoa(os.Getpid()) {
		if n, err := strconv.Atoi(filepath.Base(path)); err == nil {
			t.fd = n
		}
	}
	return t
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
	t, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	if t.fd >= 0 {
		return checkDescriptor(t.fd)
	}
	fi, err := os.Stat(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkDir(filepath.Dir(t.path))
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	case fi.IsDir():
		return ErrDirectory
	}
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		// Not opened: a reader already waiting would take the close of a
		// check's open for the end of the output, and be gone when the
		// output comes.
		if err := accessWrite(t.path); err != nil {
			return fmt.Errorf("%w: %w", ErrNotWritable, err)
		}
		return nil
	}
	// O_NONBLOCK: opening a device must not hang; no O_TRUNC: the check
	// must not change the file.
	f, err := os.OpenFile(t.path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	f.Close()
	if fi.Mode().IsRegular() && !t.descriptor {
		return checkDir(filepath.Dir(t.path)) // the rename needs a temporary file beside it
	}
	return nil
}

// OwnFile reports whether path names a file of its own, beside which a
// program may put another output named after it (r.csv's r.anatomy.csv):
// a regular file, or one not there yet. A descriptor entry (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N) is not, whatever it is open on: a file it
// leads to is the shell's, and "/dev/stdout.anatomy.csv" is no place for
// an output; nor is a device or a FIFO, nor a path that cannot be
// resolved.
func OwnFile(path string) bool {
	if path == "" {
		return false
	}
	t, err := resolve(path)
	if err != nil || t.descriptor {
		return false
	}
	fi, err := os.Stat(t.path)
	return errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular()
}

// checkDescriptor reports whether this process's descriptor fd is open
// for writing.
func checkDescriptor(fd int) error {
	flags, err := fcntlFlags(fd)
	if err != nil {
		return fmt.Errorf("%w: descriptor %d: %w", ErrNotWritable, fd, err)
	}
	if mode := flags & syscall.O_ACCMODE; mode != syscall.O_WRONLY && mode != syscall.O_RDWR {
		return fmt.Errorf("%w: descriptor %d is open for reading only", ErrNotWritable, fd)
	}
	return nil
}

// nameMax is the longest file name most file systems take (NAME_MAX).
const nameMax = 255

// maxTempSuffix bounds what createTemp adds to a base: ".tmp-", a pid and
// a sequence number.
const maxTempSuffix = len(".tmp-") + 10 + 1 + 13

// FitName shortens name, keeping its end (the extension), so that reserve
// more bytes still fit in a file name: a temporary or fallback file named
// after a long destination must not fail for its length alone after the
// work. A name that fits is returned as it is.
func FitName(name string, reserve int) string {
	limit := nameMax - reserve
	if len(name) <= limit {
		return name
	}
	ext := filepath.Ext(name)
	if len(ext) > limit/2 {
		ext = ""
	}
	cut := limit - len(ext)
	for cut > 0 && !utf8.RuneStart(name[cut]) { // not inside a multi-byte rune
		cut--
	}
	return name[:cut] + ext
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

// Distinct returns a *SameFileError, which wraps ErrSameFile, if any two
// of the paths (two outputs, an output and an input, or an input given
// twice) are the same file: the same path after links are resolved, or
// the same existing file under two names (hard links, or a descriptor of
// this process and the file it is open on). Empty paths are ignored.
func Distinct(outputs, inputs []Path) error {
	type seen struct {
		Path
		input bool
		key   string
		fi    fs.FileInfo
	}
	var all []seen
	for i, p := range append(append([]Path{}, outputs...), inputs...) {
		if p.Path == "" {
			continue
		}
		key, fi := identity(p.Path)
		cur := seen{p, i >= len(outputs), key, fi}
		for _, prev := range all {
			if prev.key == cur.key || (prev.fi != nil && cur.fi != nil && os.SameFile(prev.fi, cur.fi)) {
				return &SameFileError{First: prev.Path, Second: cur.Path, Inputs: prev.input && cur.input}
			}
		}
		all = append(all, cur)
	}
	return nil
}

// A SameFileError is Distinct's: two of the paths are one file.
type SameFileError struct {
	First, Second Path
	Inputs        bool // both are inputs
}

func (e *SameFileError) Error() string {
	return fmt.Sprintf("%s %s and %s %s are %v", e.First.Name, e.First.Path, e.Second.Name, e.Second.Path, ErrSameFile)
}

func (e *SameFileError) Unwrap() error { return ErrSameFile }

// identity returns a comparable key for path (absolute, links resolved,
// the directory of a file not yet there too) and, when the file exists,
// its FileInfo.
func identity(path string) (string, fs.FileInfo) {
	dest := path
	if t, err := resolve(path); err == nil {
		dest = t.path
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(dest)); err == nil {
		dest = filepath.Join(dir, filepath.Base(dest))
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
	base = FitName(base, maxTempSuffix)
	for {
		name := filepath.Join(dir, base+".tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempSeq.Add(1), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
}
