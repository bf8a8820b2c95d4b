package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gcbench/gcbench/internal/testwait"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errWrite = errors.New("the producer failed")

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func failAfter(s string) func(io.Writer) error {
	return func(w io.Writer) error { io.WriteString(w, s); return errWrite }
}

// entries lists dir's names, so that a test can see that no temporary file
// was left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// waitBound is how long a test waits for a FIFO's other end, for bytes
// down a pipe or for a goroutine's result before it fails, naming what it
// waited for.
const waitBound = 30 * time.Second

// readFIFO opens fifo for reading, waiting at most waitBound for a writer
// (what), and bounds the reads from it by waitBound too. The open blocks
// in the kernel, where no deadline reaches it: past the bound it is ended
// by opening the other end.
func readFIFO(t *testing.T, fifo, what string) *os.File {
	t.Helper()
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(fifo)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		require.NoError(t, o.err)
		t.Cleanup(func() { o.f.Close() })
		require.NoError(t, o.f.SetReadDeadline(time.Now().Add(waitBound)), "a FIFO takes deadlines")
		return o.f
	case <-time.After(waitBound):
		releaseFIFO(fifo)
		if o := testwait.Recv(t, ch, waitBound, "the open of "+fifo+" to return once a writer opened it"); o.f != nil {
			o.f.Close()
		}
		t.Fatalf("%s did not open %s for writing within %v", what, fifo, waitBound)
		return nil
	}
}

// releaseFIFO ends a wait in open for a writer of fifo, if there is one:
// it opens fifo for writing and closes it, so the reader reads end of
// file. With no reader waiting the open fails, and nothing happens.
func releaseFIFO(fifo string) {
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestWriteCreatesWithUmaskMode(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	require.NoError(t, Write(out, nil, writeString("{}")))
	assert.Equal(t, "{}", readFile(t, out))
	assert.Equal(t, []string{"out.json"}, entries(t, dir))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	old := syscall.Umask(0)
	syscall.Umask(old)
	assert.Equal(t, fs.FileMode(0o666&^old), fi.Mode().Perm())
}

func TestWriteReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o640))
	require.NoError(t, os.Chmod(out, 0o640))
	require.NoError(t, Write(out, nil, writeString("new")))
	assert.Equal(t, "new", readFile(t, out))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm())
}

func TestFailedWriteLeavesDestinationAndNoTemp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(out, []byte("precious"), 0o644))
	err := Write(out, nil, failAfter("half a docu"))
	require.ErrorIs(t, err, errWrite)
	assert.Equal(t, "precious", readFile(t, out))
	assert.Equal(t, []string{"out.txt"}, entries(t, dir))

	missing := filepath.Join(dir, "new.txt")
	require.ErrorIs(t, Write(missing, nil, failAfter("x")), errWrite)
	assert.NoFileExists(t, missing)
	assert.Equal(t, []string{"out.txt"}, entries(t, dir))
}

func TestSymlinkStaysAndTargetIsReplaced(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	require.NoError(t, os.Symlink("target.json", link))

	require.ErrorIs(t, Write(link, nil, failAfter("half")), errWrite)
	assert.Equal(t, "old", readFile(t, target), "a failed write leaves the target whole")
	require.NoError(t, Write(link, nil, writeString("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is still a link")
	assert.Equal(t, "new", readFile(t, target))
	assert.ElementsMatch(t, []string{"target.json", "link.json"}, entries(t, dir))
}

func TestDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(filepath.Join(dir, "made"), link))
	require.NoError(t, Write(link, nil, writeString("x")))
	assert.Equal(t, "x", readFile(t, filepath.Join(dir, "made")))
}

func TestSymlinkLoopIsAnError(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.Symlink(b, a))
	require.NoError(t, os.Symlink(a, b))
	require.ErrorIs(t, Check(a), syscall.ELOOP)
	require.Error(t, Write(a, nil, writeString("x")))
}

func TestDevicesAreWrittenInPlaceNeverReplaced(t *testing.T) {
	require.NoError(t, Check("/dev/null"))
	require.NoError(t, Write("/dev/null", nil, writeString("x")))
	err := Write("/dev/full", nil, writeString("x"))
	require.ErrorIs(t, err, syscall.ENOSPC)
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		fi, err := os.Stat(dev)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s is still a device", dev)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	require.NoError(t, os.WriteFile(existing, []byte("keep"), 0o644))
	assert.NoError(t, Check(existing))
	assert.NoError(t, Check(filepath.Join(dir, "new")))
	assert.ErrorIs(t, Check(dir), ErrDirectory)
	assert.ErrorIs(t, Check(filepath.Join(dir, "missing", "x.json")), ErrNotWritable)
	assert.ErrorIs(t, Check(filepath.Join(existing, "x.json")), ErrNotWritable, "a file is not a directory")
	assert.ErrorIs(t, Check(""), ErrNotWritable)
	assert.ErrorIs(t, Check(filepath.Join(readOnlyDir(t), "x.json")), ErrNotWritable)
	assert.Equal(t, "keep", readFile(t, existing))
	assert.ElementsMatch(t, []string{"existing"}, entries(t, dir), "Check leaves nothing behind")
}

func TestCheckReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		// root may write any file; the read-only directory case covers it.
		assert.ErrorIs(t, Check("/sys/kernel/notes"), ErrNotWritable)
		return
	}
	f := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.WriteFile(f, nil, 0o444))
	assert.ErrorIs(t, Check(f), ErrNotWritable)
}

// readOnlyDir returns a directory that refuses new files to this process:
// a chmod 0555 directory, or for root, whom permissions do not stop, sysfs.
func readOnlyDir(t *testing.T) string {
	if os.Geteuid() == 0 {
		return "/sys"
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	return dir
}

func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	require.NoError(t, os.WriteFile(a, nil, 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(a, link))
	hard := filepath.Join(dir, "hard.json")
	require.NoError(t, os.Link(a, hard))
	b := filepath.Join(dir, "b.png")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(dir, "dl")))

	assert.NoError(t, Distinct([]Path{{"--out", a}, {"--plot", b}, {"--trace", ""}}, nil))
	for _, tc := range []struct {
		name        string
		out, inputs []Path
	}{
		{"two outputs", []Path{{"--out", a}, {"--plot", a}}, nil},
		{"relative and absolute", []Path{{"--out", a}, {"--plot", filepath.Join(dir, ".", "x", "..", "a.json")}}, nil},
		{"a link to an output", []Path{{"--out", a}, {"--trace", link}}, nil},
		{"a hard link", []Path{{"--out", a}, {"--cpuprofile", hard}}, nil},
		{"output is the input", []Path{{"--perfetto", a}}, []Path{{"input", link}}},
		{"an input twice", nil, []Path{{"input", a}, {"input", hard}}},
		{"two new outputs", []Path{{"--out", b}, {"--plot", b}}, nil},
		{"a new output through a directory link", []Path{{"--out", filepath.Join(dir, "dl", "new.png")}, {"--plot", filepath.Join(dir, "real", "new.png")}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, Distinct(tc.out, tc.inputs), ErrSameFile)
		})
	}
}

func TestSetRemovesTempsOfWritesInProgress(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "trace.bin")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o644))
	var set Set
	f, err := Create(out, &set)
	require.NoError(t, err)
	_, err = f.Write([]byte("partial"))
	require.NoError(t, err)
	assert.Len(t, entries(t, dir), 2, "the temporary file sits beside the destination")
	set.RemoveTemps()
	assert.Equal(t, []string{"trace.bin"}, entries(t, dir))
	assert.Error(t, f.Commit(), "a write whose temporary file was removed cannot commit")
	assert.Equal(t, "old", readFile(t, out))
}

func TestCommitAndAbortAreIdempotent(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o")
	f, err := Create(out, nil)
	require.NoError(t, err)
	f.Write([]byte("x"))
	require.NoError(t, f.Commit())
	f.Abort()
	assert.Equal(t, "x", readFile(t, out))
	assert.Equal(t, out, f.Name())

	g, err := Create(out, nil)
	require.NoError(t, err)
	g.Abort()
	require.NoError(t, g.Commit())
	assert.Equal(t, "x", readFile(t, out))
}

func TestCreateRejectsDirectory(t *testing.T) {
	_, err := Create(t.TempDir(), nil)
	assert.ErrorIs(t, err, ErrDirectory)
}

// TestDescriptorOpenForAppendIsAppendedTo: /dev/stdout when the shell ran
// `gcbench ... --out /dev/stdout >> log` is a descriptor open for
// appending on a regular file; the output goes through it, after what the
// file held, and the file is the same file afterwards.
func TestDescriptorOpenForAppendIsAppendedTo(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	require.NoError(t, os.WriteFile(log, []byte("earlier\n"), 0o644))
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	defer f.Close()
	before, err := os.Stat(log)
	require.NoError(t, err)
	fd := strconv.Itoa(int(f.Fd()))
	for _, path := range []string{"/proc/self/fd/" + fd, "/dev/fd/" + fd} {
		require.NoError(t, Check(path), path)
		require.NoError(t, Write(path, nil, writeString(path+"\n")), path)
	}
	assert.Equal(t, "earlier\n/proc/self/fd/"+fd+"\n/dev/fd/"+fd+"\n", readFile(t, log))
	after, err := os.Stat(log)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "the file was replaced")
	assert.ElementsMatch(t, []string{"log"}, entries(t, dir))
	assert.Error(t, WriteNew("/dev/fd/"+fd, nil, writeString("x")), "an open descriptor is not a new file")
}

// TestPipeDescriptorIsWrittenInPlace: /dev/stdout on a pipe names no file
// (its link reads pipe:[N]); the output goes down the pipe.
func TestPipeDescriptorIsWrittenInPlace(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	path := "/dev/fd/" + strconv.Itoa(int(w.Fd()))
	require.NoError(t, Check(path))
	done := make(chan error, 1)
	go func() { done <- Write(path, nil, writeString("down the pipe")) }()
	buf := make([]byte, 64)
	require.NoError(t, r.SetReadDeadline(time.Now().Add(waitBound)))
	n, err := r.Read(buf)
	require.NoError(t, err, "the output down the pipe")
	assert.Equal(t, "down the pipe", string(buf[:n]))
	require.NoError(t, testwait.Recv(t, done, waitBound, "Write's return"))
	assert.ErrorIs(t, Check("/dev/fd/"+strconv.Itoa(int(r.Fd()))), ErrNotWritable, "the read end")
}

// TestRelativeLinkIsReadFromItsOwnDirectory: t/dir is a link to t/a/b, and
// t/a/b/l a link to ../x, which the kernel reads as t/a/x; an output to
// t/dir/l must replace t/a/x, not t/x.
func TestRelativeLinkIsReadFromItsOwnDirectory(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("a", "b"), filepath.Join(root, "dir")))
	require.NoError(t, os.Symlink(filepath.Join("..", "x"), filepath.Join(root, "a", "b", "l")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "x"), []byte("the user's"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "x"), []byte("target"), 0o644))

	require.NoError(t, Write(filepath.Join(root, "dir", "l"), nil, writeString("report")))
	assert.Equal(t, "report", readFile(t, filepath.Join(root, "a", "x")))
	assert.Equal(t, "the user's", readFile(t, filepath.Join(root, "x")))
	assert.ErrorIs(t, Distinct([]Path{{"--out", filepath.Join(root, "dir", "l")}, {"--plot", filepath.Join(root, "a", "x")}}, nil), ErrSameFile)
	assert.NoError(t, Distinct([]Path{{"--out", filepath.Join(root, "dir", "l")}, {"--plot", filepath.Join(root, "x")}}, nil))
}

// TestWriteNewNeverReplaces: a file that is there, or that appears while
// the output is written, stays as it is, and no temporary file is left.
func TestWriteNewNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	there := filepath.Join(dir, "there.json")
	require.NoError(t, os.WriteFile(there, []byte("theirs"), 0o644))
	assert.ErrorIs(t, WriteNew(there, nil, writeString("ours")), fs.ErrExist)

	late := filepath.Join(dir, "late.json")
	err := WriteNew(late, nil, func(w io.Writer) error {
		require.NoError(t, os.WriteFile(late, []byte("theirs"), 0o644))
		_, err := io.WriteString(w, "ours")
		return err
	})
	assert.ErrorIs(t, err, fs.ErrExist)
	for _, p := range []string{there, late} {
		assert.Equal(t, "theirs", readFile(t, p))
	}

	fresh := filepath.Join(dir, "fresh.json")
	require.NoError(t, WriteNew(fresh, nil, writeString("ours")))
	assert.Equal(t, "ours", readFile(t, fresh))
	assert.ElementsMatch(t, []string{"there.json", "late.json", "fresh.json"}, entries(t, dir))
}

func TestSameFileErrorNamesBothPathsAndWhetherBothAreInputs(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(a, nil, 0o644))
	var same *SameFileError
	require.ErrorAs(t, Distinct([]Path{{"--out", a}}, []Path{{"input", a}}), &same)
	assert.Equal(t, "--out "+a+" and input "+a+" are the same file", same.Error())
	assert.False(t, same.Inputs)
	require.ErrorAs(t, Distinct(nil, []Path{{"input", a}, {"input", a}}), &same)
	assert.True(t, same.Inputs)
}

// TestFIFOWaitsForAReader: an output to a FIFO is written once a reader
// opens it, and WriteContext gives up the wait when its context ends,
// instead of blocking in the kernel where no signal handler reaches it.
func TestFIFOWaitsForAReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := WriteContext(ctx, fifo, nil, writeString("nobody reads this"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
	fi, err := os.Stat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "the FIFO is still there")

	done := make(chan error, 1)
	go func() { done <- WriteContext(context.Background(), fifo, nil, writeString("for the reader")) }()
	time.Sleep(3 * fifoPoll) // the writer is waiting
	got, err := io.ReadAll(readFIFO(t, fifo, "WriteContext"))
	require.NoError(t, err, "the output through the FIFO")
	assert.Equal(t, "for the reader", string(got))
	require.NoError(t, testwait.Recv(t, done, waitBound, "WriteContext's return"))
}

// TestAnotherProcessesDescriptorIsAppendedTo: /proc/PID/fd/N of another
// process open on a regular file gets the output after what the file
// holds, not over its start.
func TestAnotherProcessesDescriptorIsAppendedTo(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(log, []byte("the other process's lines\n"), 0o644))
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	cmd := exec.Command("sleep", "30")
	cmd.Stdout = f
	other := testwait.Start(t, cmd) // killed when the test ends

	require.NoError(t, Write(fmt.Sprintf("/proc/%d/fd/1", other.Pid()), nil, writeString("report\n")))
	assert.Equal(t, "the other process's lines\nreport\n", readFile(t, log))
}

// TestCheckLeavesAWaitingFIFOReaderAlone: a reader already waiting on the
// FIFO gets the output whole: Check does not open the FIFO (its close
// would end the reader's read before the output is written).
func TestCheckLeavesAWaitingFIFOReaderAlone(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	got := make(chan string, 1)
	go func() {
		r, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- err.Error()
			return
		}
		defer r.Close()
		if err := r.SetReadDeadline(time.Now().Add(waitBound)); err != nil {
			got <- err.Error()
			return
		}
		b, err := io.ReadAll(r)
		if err != nil {
			b = append(b, err.Error()...)
		}
		got <- string(b)
	}()
	t.Cleanup(func() { releaseFIFO(fifo) }) // the reader's open, if the test failed before the write
	time.Sleep(3 * fifoPoll)                // the reader is waiting
	require.NoError(t, Check(fifo))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, WriteContext(ctx, fifo, nil, writeString("the report")))
	assert.Equal(t, "the report", testwait.Recv(t, got, waitBound, "what the waiting reader read"))

	require.NoError(t, os.Chmod(fifo, 0o400))
	if os.Geteuid() != 0 { // root may write whatever the mode says
		assert.ErrorIs(t, Check(fifo), ErrNotWritable, "a FIFO this process may not write")
	}
}

// TestALongNameIsWrittenThroughAShorterTemporaryFile: a destination whose
// name nearly fills NAME_MAX is written (its temporary file's name is
// shortened to fit), and FitName keeps an extension and whole runes.
func TestALongNameIsWrittenThroughAShorterTemporaryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("x", 246)+".json")
	require.NoError(t, Check(path))
	require.NoError(t, Write(path, nil, writeString("{}")))
	assert.Equal(t, "{}", readFile(t, path))
	assert.ElementsMatch(t, []string{filepath.Base(path)}, entries(t, filepath.Dir(path)), "no temporary file left")

	fit := FitName(strings.Repeat("é", 200)+".json", 100)
	assert.LessOrEqual(t, len(fit), 155)
	assert.True(t, strings.HasSuffix(fit, ".json"))
	assert.True(t, utf8.ValidString(fit))
	assert.Equal(t, "short.json", FitName("short.json", 100))
}

// TestAStalledFIFOReaderCannotHoldAWriteForever: a reader that opens the
// FIFO and never reads fills the pipe; once the context ends, the write
// gets fifoGrace more, then fails, instead of blocking for good.
func TestAStalledFIFOReaderCannotHoldAWriteForever(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r, err := os.OpenFile(fifo, os.O_RDWR, 0) // a reader (and writer) that reads nothing
	require.NoError(t, err)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = WriteContext(ctx, fifo, nil, func(w io.Writer) error {
		_, err := w.Write(make([]byte, 4<<20)) // far more than a pipe holds
		return err
	})
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.Less(t, time.Since(start), fifoGrace+2*time.Second)
}

// TestOwnFile: a regular file or a new one has a place beside it for a
// derived output; a descriptor entry never does, even open on a regular
// file (its "sibling" would be /dev/fd/N.anatomy.csv), nor does a device.
func TestOwnFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "r.csv")
	require.NoError(t, os.WriteFile(regular, nil, 0o644))
	f, err := os.Open(regular)
	require.NoError(t, err)
	defer f.Close()
	for path, want := range map[string]bool{
		regular:                                      true,
		filepath.Join(dir, "new"):                    true,
		"/dev/fd/" + strconv.Itoa(int(f.Fd())):       false,
		"/proc/self/fd/" + strconv.Itoa(int(f.Fd())): false,
		"/dev/stdout":                                false,
		"/dev/null":                                  false,
		dir:                                          false,
		"":                                           false,
	} {
		assert.Equal(t, want, OwnFile(path), path)
	}
}
