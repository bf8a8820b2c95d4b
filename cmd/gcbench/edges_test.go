package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// savedRun runs a tiny comparison into dir/saved.json and returns the
// file's path and its JSON.
func savedRun(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	saved := filepath.Join(dir, "saved.json")
	_, stderr, code := runBinary(t, tiny("--gcs", "2", "--modes", "serial,batch", "--out", saved)...)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	return saved, data
}

// editSettings writes data with its settings replaced by edit's into
// dir/name.
func editSettings(t *testing.T, data []byte, dir, name string, edit func(doc map[string]any)) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	edit(doc)
	edited, err := json.Marshal(doc)
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, edited, 0o666))
	return path
}

// assertOneLine asserts that stderr is one line, ended by its newline.
func assertOneLine(t *testing.T, stderr string) {
	t.Helper()
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.True(t, strings.HasSuffix(stderr, "\n"), "one line: %q", stderr)
}

// TestRunConfigRefusesEverySettingTheFlagsRefuse: a saved report's
// settings are checked whole, as the flags are, before any heap is built:
// exit 2, one line naming the file and the key. Before, gomaxprocs 2^31
// was a runtime fatal error with a 151-line trace, 10^5 an abort in
// pthread_create after 28 s, −7 was saved into the new report, modes []
// or a duplicate ran every mode and then failed (exit 1) with nothing
// kept, gcs 0 or −1 failed at run start without naming the file, and null
// settings reran the default 2.5 GiB experiment.
func TestRunConfigRefusesEverySettingTheFlagsRefuse(t *testing.T) {
	dir := t.TempDir()
	_, data := savedRun(t, dir)
	set := func(key string, v any) func(doc map[string]any) {
		return func(doc map[string]any) { doc["settings"].(map[string]any)[key] = v }
	}
	for _, tc := range []struct {
		name, key string
		edit      func(doc map[string]any)
	}{
		{"procs-2-31.json", "gomaxprocs", set("gomaxprocs", int64(1)<<31)},
		{"procs-1e5.json", "gomaxprocs", set("gomaxprocs", 100000)},
		{"procs-neg.json", "gomaxprocs", set("gomaxprocs", -7)},
		{"modes-none.json", "modes", set("modes", []string{})},
		{"modes-twice.json", "modes", set("modes", []string{"batch", "batch"})},
		{"gcs-0.json", "gcs", set("gcs", 0)},
		{"gcs-neg.json", "gcs", set("gcs", -1)},
		{"warmup-neg.json", "warmup", set("warmup", -5)},
		{"null.json", "settings", func(doc map[string]any) { doc["settings"] = nil }},
	} {
		path := editSettings(t, data, dir, tc.name, tc.edit)
		_, stderr, code := runBinary(t, "run", "--config", path, "--out", filepath.Join(dir, "never.json"))
		assert.Equal(t, 2, code, "%s: %s", tc.name, stderr)
		assert.Contains(t, stderr, path, tc.name)
		assert.Contains(t, stderr, tc.key, tc.name)
		assertOneLine(t, stderr)
		assert.NoFileExists(t, filepath.Join(dir, "never.json"), tc.name)
	}
	_, stderr, code := runBinary(t, "run", "--config=")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--config: an empty file name")
}

// TestRunNeverOverwritesItsConfig: the report being rerun is an input;
// every output naming it is refused before the run, and it is left as it
// was. Before, run --config in.json --out in.json replaced it, exit 0.
func TestRunNeverOverwritesItsConfig(t *testing.T) {
	dir := t.TempDir()
	saved, data := savedRun(t, dir)
	for _, flag := range []string{"--out", "--html", "--hdr-log", "--trace", "--plot", "--cpuprofile"} {
		target := saved
		if flag == "--plot" { // --plot needs an image's extension: a link to the input with one
			target = filepath.Join(dir, "saved.svg")
			require.NoError(t, os.Symlink(saved, target))
		}
		_, stderr, code := runBinary(t, "run", "--config", saved, flag, target)
		assert.Equal(t, 2, code, "%s: %s", flag, stderr)
		assert.Contains(t, stderr, "--config", flag)
		assertOneLine(t, stderr)
		now, err := os.ReadFile(saved)
		require.NoError(t, err)
		assert.Equal(t, data, now, "%s left the input as it was", flag)
	}
}

// TestABadCombinationIsRefusedAtOnce: the Native backend has no Spin
// policy; run and sweep refuse it before building a heap, and a sweep
// before its first point. Before, run failed after 14.6 s and 2.1 GB, and
// a sweep ran 2 of 4 points first.
func TestABadCombinationIsRefusedAtOnce(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the native backend is not built in")
	}
	_, stderr, code := runBinary(t, "run", "--backend", "native", "--wake", "spin")
	assert.Equal(t, 2, code, stderr)
	assert.Equal(t, "gcbench run: --wake spin: want broadcast, signal or targeted on the native backend\n", stderr)

	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code = runBinary(t, "sweep", "--dir", dir, "--backend", "threads,native", "--wake", "broadcast,spin",
		"--workers", "1", "--major-heap", "64MiB", "--los", "16MiB", "--gcs", "2")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--wake spin")
	assertOneLine(t, stderr)
	assert.NoDirExists(t, dir, "no point ran")
}

// TestAHerdTheMachineCannotWakeIsRefusedAtOnce: 4096 workers woken for
// each of 32,769 jobs on a few CPUs is refused before anything runs,
// naming the workers, the bound and the flag that overrides it. Before,
// such a run had not stopped 14 minutes after SIGINT.
func TestAHerdTheMachineCannotWakeIsRefusedAtOnce(t *testing.T) {
	backend := []string{"--backend", "threads"}
	if workerpool.NativeAvailable {
		backend = []string{"--backend", "native", "--mutex", "pi"}
	}
	// A heap that fits 4096 workers and a small machine's memory: the
	// herd, not the heap, is what is refused.
	backend = append(backend, "--major-heap", "512MiB", "--los", "256MiB", "--nursery", "256KiB")
	_, stderr, code := runBinary(t, append([]string{"run", "--workers", "4096"}, backend...)...)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "gcbench run: --workers 4096: want at most ")
	assert.Contains(t, stderr, "--herd-limit")
	assertOneLine(t, stderr)

	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code = runBinary(t, append([]string{"sweep", "--dir", dir, "--workers", "1,4096", "--wake", "broadcast",
		"--modes", "perjob,batch"}, backend...)...)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--herd-limit")
	assert.NoDirExists(t, dir, "no point ran")
}

// TestAReportThatCannotBeBuiltKeepsTheSamples: what a run measured is
// kept, and the error says where, when its report cannot be built.
func TestAReportThatCannotBeBuiltKeepsTheSamples(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	e := gcsim.DefaultExperiment()
	e.Modes = []gcsim.Mode{gcsim.Batch}
	res := &gcsim.Result{Config: e.Config, Modes: []gcsim.ModeResult{
		{Mode: gcsim.Serial, Records: []gcsim.Record{{Mode: gcsim.Serial, Pause: 7}}},
		{Mode: gcsim.Batch, Records: []gcsim.Record{{Mode: gcsim.Batch, Pause: 5}}}}}
	r, err := reportOf(e, res, gcsim.ReportOptions{})
	assert.Nil(t, r)
	var kept *outfile.KeptError
	require.ErrorAs(t, err, &kept)
	assert.Contains(t, err.Error(), kept.Path)
	data, rerr := os.ReadFile(kept.Path)
	require.NoError(t, rerr)
	var back gcsim.Result
	require.NoError(t, json.Unmarshal(data, &back))
	require.Len(t, back.Modes, 2)
	assert.Equal(t, res.Modes[1].Records[0].Pause, back.Modes[1].Records[0].Pause)
}

// TestADirectoryIsListedNotGlobbed: report DIR reads DIR's own .json
// files, whatever characters its name holds. Before, 'g[1]' was a pattern
// that read g1/other.json, and 'h[x' failed with a bare "syntax error in
// pattern".
func TestADirectoryIsListedNotGlobbed(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"g[1]/a.json", "g[1]/notes.txt", "g[1]/sub.json/x", "g1/other.json", "h[x/b.json"} {
		path := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, nil, 0o644))
	}
	names, sweep, err := reportInputs([]string{filepath.Join(dir, "g[1]"), filepath.Join(dir, "h[x")})
	require.NoError(t, err)
	assert.True(t, sweep)
	assert.Equal(t, []string{filepath.Join(dir, "g[1]", "a.json"), filepath.Join(dir, "h[x", "b.json")}, names)
}

// TestADescriptorGetsNoAnatomySibling: --format csv --out /dev/fd/N (or
// /dev/stdout) open on a regular file writes the table through the
// descriptor and no derived file beside the descriptor's name. Before,
// "/dev/fd/N.anatomy.csv" was created.
func TestADescriptorGetsNoAnatomySibling(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "table.csv"))
	require.NoError(t, err)
	defer f.Close()
	assert.Empty(t, anatomyPath("/dev/fd/"+strconv.Itoa(int(f.Fd()))))
	assert.Empty(t, anatomyPath("/dev/stdout"))
	assert.Equal(t, filepath.Join("out", "r.anatomy.csv"), anatomyPath(filepath.Join("out", "r.csv")))
}
