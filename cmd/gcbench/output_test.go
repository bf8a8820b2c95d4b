package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The output-safety tests run gcbench as a hurried user would, with every
// kind of bad output path, and check that it never destroys a file it was
// not asked to write, refuses bad paths before the work (exit status 2,
// one line naming the flag), and never loses a result.

// snapshot is what a path is before a command runs: its kind, mode and
// content, so that a test can assert it is untouched afterwards.
type snapshot struct {
	path    string
	mode    fs.FileMode
	content string
}

func snap(t *testing.T, path string) snapshot {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	s := snapshot{path: path, mode: fi.Mode()}
	if fi.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		s.content = string(b)
	}
	return s
}

func (s snapshot) assertUnchanged(t *testing.T) {
	t.Helper()
	now := snap(t, s.path)
	assert.Equal(t, s.mode, now.mode, "%s changed kind or mode", s.path)
	assert.Equal(t, s.content, now.content, "%s changed content", s.path)
}

// names lists dir, so a test can see that nothing was left behind.
func names(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func assertUsageLine(t *testing.T, stdout, stderr string, code int, flag string) {
	t.Helper()
	assert.Equal(t, 2, code, "bad output paths are bad usage: %s", stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.Contains(t, stderr, flag)
}

// readOnlyPlaces returns a file and a directory this process cannot write:
// chmod'ed ones, or for root, whom permissions do not stop, sysfs.
func readOnlyPlaces(t *testing.T) (file, dir string) {
	if os.Geteuid() == 0 {
		return "/sys/kernel/notes", "/sys"
	}
	d := t.TempDir()
	file = filepath.Join(d, "ro.json")
	require.NoError(t, os.WriteFile(file, []byte("keep"), 0o444))
	ro := filepath.Join(d, "ro")
	require.NoError(t, os.Mkdir(ro, 0o555))
	return file, ro
}

func TestRunRefusesBadOutputPathsBeforeWork(t *testing.T) {
	dir := t.TempDir()
	roFile, roDir := readOnlyPlaces(t)
	existing := filepath.Join(dir, "keep.json")
	require.NoError(t, os.WriteFile(existing, []byte("precious"), 0o644))
	before := snap(t, existing)
	for _, tc := range []struct {
		name, flag string
		args       []string
	}{
		{"a read-only system directory", "--out", []string{"--out", filepath.Join(roDir, "run.json")}},
		{"a read-only file", "--out", []string{"--out", roFile}},
		{"a directory", "--out", []string{"--out", dir}},
		{"a missing directory", "--out", []string{"--out", filepath.Join(dir, "missing", "run.json")}},
		{"a plot in a missing directory", "--plot", []string{"--plot", filepath.Join(dir, "missing", "p.png")}},
		{"a trace into a directory", "--trace", []string{"--trace", dir}},
		{"a profile in a read-only directory", "--cpuprofile", []string{"--cpuprofile", filepath.Join(roDir, "cpu.prof")}},
		{"plot and out the same", "--plot", []string{"--plot", filepath.Join(dir, "s.png"), "--out", filepath.Join(dir, "s.png")}},
		{"trace and out the same", "--trace", []string{"--trace", existing, "--out", existing}},
		{"profile and out the same", "--cpuprofile", []string{"--cpuprofile", existing, "--out", existing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// --gcs is large: a check made after the run would time out.
			args := append([]string{"run", "--major-heap", "64MiB", "--los", "16MiB", "--gcs", "1000000"}, tc.args...)
			stdout, stderr, code := runBinary(t, args...)
			assertUsageLine(t, stdout, stderr, code, tc.flag)
			before.assertUnchanged(t)
			assert.ElementsMatch(t, []string{"keep.json"}, names(t, dir), "nothing created")
		})
	}
}

func TestRunKeepsResultsWhenTheFinalWriteFails(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	full := filepath.Join(dir, "full.json")
	require.NoError(t, os.Symlink("/dev/full", full)) // writes fail with ENOSPC
	plotFull := filepath.Join(dir, "full.png")
	require.NoError(t, os.Symlink("/dev/full", plotFull))
	out := filepath.Join(dir, "run.json")

	t.Run("--out on a full device", func(t *testing.T) {
		stdout, stderr, code := runBinary(t, tiny("--out", full)...)
		assert.Equal(t, 1, code, stderr)
		assert.Empty(t, stdout)
		m := regexp.MustCompile(`saved in (\S+) instead`).FindStringSubmatch(stderr)
		require.NotNil(t, m, "the error names where the report went: %q", stderr)
		kept, err := os.ReadFile(m[1])
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(kept, &doc), "the kept report is the whole JSON document")
		assert.Equal(t, filepath.Dir(m[1]), tmp)
		snap(t, "/dev/full") // still there
		fi, err := os.Stat("/dev/full")
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeCharDevice, "the device is not replaced")
	})
	t.Run("a failing --plot does not skip --out", func(t *testing.T) {
		_, stderr, code := runBinary(t, tiny("--plot", plotFull, "--out", out)...)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "--plot")
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.True(t, json.Valid(b), "--out was written whole")
		l, err := os.Lstat(plotFull)
		require.NoError(t, err)
		assert.NotZero(t, l.Mode()&fs.ModeSymlink, "the link is kept")
	})
}

func TestPerfettoNeverDestroysFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeTraceFile(t)
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	corrupt := filepath.Join(dir, "corrupt.gctrace")
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	require.NoError(t, os.WriteFile(corrupt, flipped, 0o644))

	existing := filepath.Join(dir, "existing.json")
	require.NoError(t, os.WriteFile(existing, []byte("precious"), 0o600))
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte(`{"old": true}`), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("target.json", link))
	keep := []snapshot{snap(t, existing), snap(t, target), snap(t, link), snap(t, corrupt), snap(t, good)}
	listing := names(t, dir)

	t.Run("an existing file, export fails", func(t *testing.T) {
		_, stderr, code := runBinary(t, "trace", "--perfetto", existing, corrupt)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "corrupt")
	})
	t.Run("a symlink, export fails", func(t *testing.T) {
		_, stderr, code := runBinary(t, "trace", "--perfetto", link, corrupt)
		assert.Equal(t, 1, code, stderr)
	})
	t.Run("the input as the output", func(t *testing.T) {
		stdout, stderr, code := runBinary(t, "trace", "--perfetto", corrupt, corrupt)
		assertUsageLine(t, stdout, stderr, code, "--perfetto")
	})
	t.Run("the input through a link as the output", func(t *testing.T) {
		l := filepath.Join(t.TempDir(), "in.json")
		require.NoError(t, os.Symlink(good, l))
		stdout, stderr, code := runBinary(t, "trace", "--perfetto", l, good)
		assertUsageLine(t, stdout, stderr, code, "--perfetto")
	})
	t.Run("a full device", func(t *testing.T) {
		_, stderr, code := runBinary(t, "trace", "--perfetto", "/dev/full", good)
		assert.Equal(t, 1, code, stderr)
		fi, err := os.Stat("/dev/full")
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&fs.ModeCharDevice, "the device is not removed or replaced")
	})
	for _, s := range keep {
		s.assertUnchanged(t)
	}
	assert.ElementsMatch(t, listing, names(t, dir), "no file added or removed")

	t.Run("a symlink, export succeeds", func(t *testing.T) {
		_, stderr, code := runBinary(t, "trace", "--perfetto", link, good)
		require.Equal(t, 0, code, stderr)
		snap(t, link).assertUnchanged(t) // still the same link
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.True(t, json.Valid(b), "the link's target holds the whole document")
	})
}

func TestReportRefusesItsInputAsOutput(t *testing.T) {
	in := filepath.Join(t.TempDir(), "a.json")
	b, err := os.ReadFile(filepath.Join("testdata", "report-a.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, b, 0o644))
	before := snap(t, in)
	stdout, stderr, code := runBinary(t, "report", "--out", in, in)
	assertUsageLine(t, stdout, stderr, code, "--out")
	before.assertUnchanged(t)
}

// TestOnlyCancelled: a stop is said alone only when the error says
// nothing else; an output lost or kept elsewhere beside it is said too.
func TestOnlyCancelled(t *testing.T) {
	stop := interrupted{syscall.SIGTERM}
	lost := errors.New("--plot p.svg: disk full")
	kept := &outfile.KeptError{Err: fmt.Errorf("--out f: %w", context.Canceled), Path: "/tmp/x"}
	for _, tc := range []struct {
		err  error
		only bool
	}{
		{nil, true},
		{context.Canceled, true},
		{stop, true},
		{fmt.Errorf("gcsim: compare: %w", context.Canceled), true},
		{joinErrors(fmt.Errorf("a: %w", context.Canceled), fmt.Errorf("b: %w", stop)), true},
		{errors.Join(context.Canceled, context.Canceled), true},
		{lost, false},
		{joinErrors(fmt.Errorf("gcsim: %w", context.Canceled), lost), false},
		{kept, false},
		{fmt.Errorf("wrapped: %w", kept), false},
	} {
		assert.Equal(t, tc.only, onlyCancelled(tc.err), "%v", tc.err)
	}
}

// TestOneLineEscapesControlCharacters: a path with a line break keeps an
// error message on one line.
func TestOneLineEscapesControlCharacters(t *testing.T) {
	assert.Equal(t, `--out no\nsuch/a.json: no such file\r`, oneLine("--out no\nsuch/a.json: no such file\r\x00"))
}
