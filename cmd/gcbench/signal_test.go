package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/internal/testwait"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The signal tests send SIGINT, SIGTERM and SIGHUP to a built gcbench in
// each long phase and check what a user at a terminal, or a batch
// scheduler ending a job, relies on: it exits within 2 s with 128 + the
// signal's number, keeps what it measured, and leaves no temporary file.

// maxExit is how long gcbench may take to exit after a signal.
const maxExit = 2 * time.Second

// exitBound is how long a test waits for gcbench to exit after a signal
// before it kills it and fails with what it printed: far past maxExit, so
// that a slow exit is told by the assertion on the time it took.
const exitBound = 10 * maxExit

// A longPhase is a command that would run for minutes, the time it needs
// to be well inside its long phase, and what it must leave in its
// directory when stopped there.
type longPhase struct {
	name  string
	args  []string
	after time.Duration
	check func(t *testing.T, dir string)
}

func longPhases() []longPhase {
	return []longPhase{
		{name: "run: populating the heap", after: 300 * time.Millisecond,
			// A 4 GiB heap takes seconds to fill; nothing is measured yet,
			// so nothing is written.
			args: []string{"run", "--major-heap", "4GiB", "--los", "512MiB", "--out", "run.json", "--trace", "run.gctrace"},
			check: func(t *testing.T, dir string) {
				assert.Empty(t, names(t, dir), "nothing measured, nothing written, nothing left")
			}},
		{name: "run: collecting", after: 3 * time.Second,
			// Past the first recorded round even on a loaded machine: a stop
			// inside a pause drops that collection, and a report needs one
			// of every mode.
			args: []string{"run", "--major-heap", "64MiB", "--los", "16MiB", "--nursery", "256KiB", "--gcs", "100000000",
				"--warmup", "2", "--out", "run.json", "--trace", "run.gctrace"},
			check: func(t *testing.T, dir string) {
				assert.ElementsMatch(t, []string{"run.json", "run.gctrace"}, names(t, dir))
				var doc struct {
					Runs []struct {
						Partial string `json:"partial"`
					} `json:"runs"`
				}
				b, err := os.ReadFile(filepath.Join(dir, "run.json"))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &doc), "a whole JSON document")
				require.Len(t, doc.Runs, 1)
				assert.Contains(t, doc.Runs[0].Partial, "interrupted by SIG")
				stdout, stderr, code := runBinary(t, "trace", filepath.Join(dir, "run.gctrace"))
				require.Equal(t, 0, code, stderr)
				assert.NotContains(t, stdout, "TRUNCATED", "the trace was closed with its end block")
			}},
		{name: "sweep", after: 1500 * time.Millisecond,
			// Every point would run for hours.
			args: []string{"sweep", "--dir", "pts", "--workers", "1,2", "--wake", "broadcast", "--major-heap", "64MiB",
				"--los", "16MiB", "--nursery", "256KiB", "--gcs", "100000000", "--warmup", "1", "--shard", "0/1"},
			check: func(t *testing.T, dir string) {
				assert.Equal(t, []string{"pts"}, names(t, dir))
				assert.Empty(t, names(t, filepath.Join(dir, "pts")), "an interrupted point is not saved")
			}},
		{name: "readylist", after: 500 * time.Millisecond,
			args:  []string{"readylist", "--events", "1000000000", "--producers", "8", "--repetitions", "1"},
			check: func(t *testing.T, dir string) { assert.Empty(t, names(t, dir)) }},
		{name: "pool: throughput, goroutine baseline", after: 500 * time.Millisecond,
			args:  []string{"pool", "--items", "33554432", "--protocols", "throughput", "--repetitions", "1"},
			check: func(t *testing.T, dir string) { assert.Empty(t, names(t, dir)) }},
		{name: "pool: throughput, the pool", after: 1500 * time.Millisecond,
			// The baseline's 2M items take about a second; then the pool's.
			args: []string{"pool", "--items", "2000000", "--protocols", "throughput", "--repetitions", "3",
				"--backends", "threads", "--wakes", "broadcast", "--batch-size", "-1"},
			check: func(t *testing.T, dir string) { assert.Empty(t, names(t, dir)) }},
		{name: "trace-stress", after: 500 * time.Millisecond,
			args:  []string{"trace-stress", "--duration", "1m", "--iterations", "2", "--dir", "."},
			check: func(t *testing.T, dir string) { assert.Empty(t, names(t, dir), "its trace files are gone") }},
	}
}

// interrupt starts gcbench with args in dir, sends sigs (in order, back to
// back) after a while, and returns the exit status and how long gcbench
// took to exit after the first signal. gcbench starts with the signals at
// their default dispositions, whatever this test binary inherited (see
// testwait.Signals), and is killed if it has not exited exitBound after
// them.
func interrupt(t *testing.T, dir string, args []string, after time.Duration, sigs ...syscall.Signal) (code int, took time.Duration, stderr string) {
	t.Helper()
	tmp := filepath.Join(dir, ".tmp") // the command's TMPDIR: what it leaves there is a leak
	require.NoError(t, os.Mkdir(tmp, 0o755))
	cmd := exec.Command(gcbenchBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var errOut limitedBuffer
	cmd.Stderr = &errOut
	c := testwait.Start(t, cmd)
	time.Sleep(after)
	sent := time.Now()
	for _, s := range sigs {
		require.NoError(t, c.Signal(s))
	}
	err := c.Wait(exitBound)
	took = time.Since(sent)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err, "gcbench ended by itself before the signal: %s", errOut.String())
	}
	leaked, lerr := os.ReadDir(tmp)
	require.NoError(t, lerr)
	assert.Empty(t, leaked, "temporary files left behind")
	require.NoError(t, os.Remove(tmp))
	return code, took, errOut.String()
}

func TestSignalsStopEveryLongPhase(t *testing.T) {
	for _, p := range longPhases() {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(p.name+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				code, took, stderr := interrupt(t, dir, p.args, p.after, sig)
				assert.Equal(t, 128+int(sig), code, stderr)
				assert.Less(t, took, maxExit, "time to exit after the signal")
				assert.Contains(t, stderr, "interrupted by SIG")
				p.check(t, dir)
			})
		}
	}
}

func TestSIGHUPStopsARun(t *testing.T) {
	p := longPhases()[1]
	dir := t.TempDir()
	code, took, stderr := interrupt(t, dir, p.args, p.after, syscall.SIGHUP)
	assert.Equal(t, 129, code, stderr)
	assert.Less(t, took, maxExit)
	p.check(t, dir)
}

func TestSecondSignalExitsAtOnce(t *testing.T) {
	p := longPhases()[0]
	dir := t.TempDir()
	code, took, stderr := interrupt(t, dir, p.args, p.after, syscall.SIGINT, syscall.SIGTERM)
	assert.Contains(t, []int{130, 143}, code, stderr)
	assert.Less(t, took, maxExit)
	assert.Empty(t, names(t, dir), "temporary outputs removed")
	if code == 143 { // the second signal (SIGTERM) ended it, not the first one's orderly stop
		assert.Contains(t, stderr, "interrupted by SIGTERM, a second signal: exiting at once, temporary files removed")
	}
}

// limitedBuffer keeps the first 64 KiB written to it: enough for any
// error line, bounded whatever a broken command prints.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 64<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }

// TestNohupKeepsARunThroughSIGHUP: a signal ignored when gcbench starts
// (nohup ignores SIGHUP) stays ignored, so a logout does not stop a long
// sweep started with nohup; SIGINT still does.
func TestNohupKeepsARunThroughSIGHUP(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	require.NoError(t, err, "nohup (coreutils) is on every Linux this runs on")
	p := longPhases()[1]
	dir := t.TempDir()
	cmd := exec.Command(nohup, append([]string{gcbenchBin}, p.args...)...)
	cmd.Dir = dir
	var errOut limitedBuffer
	cmd.Stdout, cmd.Stderr = &errOut, &errOut
	c := testwait.Start(t, cmd)
	time.Sleep(p.after)
	require.NoError(t, c.Signal(syscall.SIGHUP))
	select {
	case <-c.Done():
		t.Fatalf("gcbench under nohup ended on SIGHUP: %v", c.Output())
	case <-time.After(500 * time.Millisecond):
	}
	require.NoError(t, c.Signal(syscall.SIGINT))
	err = c.Wait(exitBound)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 130, exit.ExitCode(), errOut.String())
	p.check(t, dir)
}

// TestSignalStopsAReportsBootstrap: the scaling table of a large sweep
// takes seconds of bootstrap (two ratios' 2000 resamples per point); the
// first SIGINT stops it between points.
func TestSignalStopsAReportsBootstrap(t *testing.T) {
	dir := t.TempDir()
	points := filepath.Join(dir, "points")
	require.NoError(t, os.Mkdir(points, 0o755))
	rng := rand.New(rand.NewPCG(1, 2))
	samples := func(mean float64) string {
		vs := make([]string, 3000)
		for i := range vs {
			vs[i] = strconv.FormatFloat(mean*(0.5+rng.Float64()), 'f', 1, 64)
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	for w := 1; w <= 24; w++ {
		doc := `{"schema":"` + report.Schema + `","unit":"µs","config":{"modes":"perjob,batch","workers":"` + strconv.Itoa(w) + `"},` +
			`"runs":[{"host":{"cores":2},"modes":[{"name":"perjob","pauses_us":` + samples(3000) + `},{"name":"batch","pauses_us":` + samples(2500) + `}]}]}`
		require.NoError(t, os.WriteFile(filepath.Join(points, "w"+strconv.Itoa(w)+".json"), []byte(doc), 0o644))
	}
	code, took, stderr := interrupt(t, dir, []string{"report", "points"}, 1500*time.Millisecond, syscall.SIGINT)
	assert.Equal(t, 130, code, stderr)
	assert.Less(t, took, maxExit, "time to exit after the signal")
}

// TestSignalStopsAReadFromAFIFO: `gcbench trace` or `report` on a FIFO
// waits in open for a writer, then in read for its bytes; the first SIGINT
// ends either wait.
func TestSignalStopsAReadFromAFIFO(t *testing.T) {
	for _, tc := range []struct {
		command string
		writer  bool
	}{{"trace", false}, {"trace", true}, {"report", false}, {"report", true}} {
		t.Run(fmt.Sprintf("%s, writer %v", tc.command, tc.writer), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "input.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			if tc.writer { // a writer that has opened the FIFO and says nothing
				w, err := os.OpenFile(fifo, os.O_RDWR, 0)
				require.NoError(t, err)
				defer w.Close()
			}
			code, took, stderr := interrupt(t, dir, []string{tc.command, fifo}, 300*time.Millisecond, syscall.SIGINT)
			assert.Equal(t, 130, code, stderr)
			assert.Less(t, took, maxExit, "time to exit after the signal")
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		})
	}
}

// TestSignalStopsAWaitForAnOutputFIFOsReader: an output to a FIFO nobody
// reads waits for a reader, and the first signal ends that wait: a
// --trace, opened before the run, is given up; a report's --out, written
// after its work, is kept in the temporary directory, which the message
// names.
func TestSignalStopsAWaitForAnOutputFIFOsReader(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	code, took, stderr := interrupt(t, dir, append(slices.Clone(runTiny), "--trace", fifo, "--out", "run.txt"),
		300*time.Millisecond, syscall.SIGINT)
	assert.Equal(t, 130, code, stderr)
	assert.Less(t, took, maxExit, "time to exit after the signal")
	assert.ElementsMatch(t, []string{"out.fifo"}, names(t, dir), "nothing measured, nothing written")

	input, err := filepath.Abs(reportA)
	require.NoError(t, err)
	tmp := t.TempDir()
	cmd := exec.Command(gcbenchBin, "report", input, "--out", fifo)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var errOut limitedBuffer
	cmd.Stderr = &errOut
	c := testwait.Start(t, cmd)
	time.Sleep(time.Second) // the report is rendered in milliseconds; then it waits for a reader
	sent := time.Now()
	require.NoError(t, c.Signal(syscall.SIGINT))
	err = c.Wait(exitBound)
	assert.Less(t, time.Since(sent), maxExit, "time to exit after the signal")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, errOut.String())
	assert.Equal(t, 130, exit.ExitCode(), errOut.String())
	kept, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, kept, 1, "the report kept in TMPDIR")
	assert.Contains(t, errOut.String(), "interrupted by SIGINT")
	assert.Contains(t, errOut.String(), "saved in "+filepath.Join(tmp, kept[0].Name()))
	text, err := os.ReadFile(filepath.Join(tmp, kept[0].Name()))
	require.NoError(t, err)
	assert.Contains(t, string(text), "host: bench-a")
}

// TestSignalDuringAConfigReadSaysWhatItStopped: SIGINT while run waits for
// a --config FIFO's writer ends it with a sentence naming the signal and
// the file. Before, it printed "--config context canceled".
func TestSignalDuringAConfigReadSaysWhatItStopped(t *testing.T) {
	for _, writer := range []bool{false, true} {
		t.Run(fmt.Sprintf("writer %v", writer), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "settings.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			if writer { // a writer that has opened the FIFO and says nothing
				w, err := os.OpenFile(fifo, os.O_RDWR, 0)
				require.NoError(t, err)
				defer w.Close()
			}
			code, took, stderr := interrupt(t, dir, []string{"run", "--config", fifo}, 300*time.Millisecond, syscall.SIGINT)
			assert.Equal(t, 130, code, stderr)
			assert.Less(t, took, maxExit, "time to exit after the signal")
			assert.Equal(t, "gcbench run: interrupted by SIGINT; --config "+fifo+" was not read, and nothing ran\n", stderr)
		})
	}
}
