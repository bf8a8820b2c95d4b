package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
)

// readSaved reads a report run saved, failing the test otherwise.
func readSaved(t *testing.T, path string) *report.Report {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := report.ReadJSON(f)
	require.NoError(t, err)
	return r
}

// TestRunConfigRerunsTheSavedExperiment: run --config reproduces a saved
// run's configuration exactly, typed settings and displayed pairs alike,
// and a flag given beside it overrides that one setting.
func TestRunConfigRerunsTheSavedExperiment(t *testing.T) {
	dir := t.TempDir()
	first, again, changed := filepath.Join(dir, "first.json"), filepath.Join(dir, "again.json"), filepath.Join(dir, "changed.json")
	_, stderr, code := runBinary(t, tiny("--modes", "batch,serial", "--seed", "7", "--gcs", "4", "--lock-collector", "--out", first)...)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runBinary(t, "run", "--config", first, "--out", again)
	require.Equal(t, 0, code, stderr)
	a, b := readSaved(t, first), readSaved(t, again)
	assert.Equal(t, a.Config, b.Config)
	assert.JSONEq(t, string(a.Settings), string(b.Settings))
	assert.Contains(t, string(a.Settings), `"major_heap": "64MiB"`)
	assert.Equal(t, report.Schema, a.Schema)

	_, stderr, code = runBinary(t, "run", "--config", first, "--gcs", "3", "--out", changed)
	require.Equal(t, 0, code, stderr)
	c := readSaved(t, changed)
	assert.Equal(t, "3", c.Config.Value("gcs"))
	k, _ := report.FirstDifference(a.Config, c.Config)
	assert.Equal(t, "gcs", k)
	for i := range c.Config {
		if c.Config[i].Key == "gcs" {
			c.Config[i].Value = a.Config.Value("gcs")
		}
	}
	assert.Equal(t, a.Config, c.Config, "only --gcs changed, in its place")
}

// TestRunConfigRefusesNamingFileAndKey: a saved report whose settings hold
// an unknown key or a bad value is refused, naming the file and the key;
// a report saved before typed settings says how to regenerate it.
func TestRunConfigRefusesNamingFileAndKey(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved.json")
	_, stderr, code := runBinary(t, tiny("--gcs", "2", "--modes", "serial,batch", "--out", saved)...)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, key string
		edit      func(settings map[string]any)
	}{
		{"unknown.json", "wrokers", func(s map[string]any) { s["wrokers"] = 2 }},
		{"badvalue.json", "wake", func(s map[string]any) { s["wake"] = "shout" }},
		{"badsize.json", "major_heap", func(s map[string]any) { s["major_heap"] = "lots" }},
		{"nested.json", "mutator.major_fil", func(s map[string]any) { s["mutator"].(map[string]any)["major_fil"] = 0.5 }},
	} {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		tc.edit(doc["settings"].(map[string]any))
		edited, err := json.Marshal(doc)
		require.NoError(t, err)
		path := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(path, edited, 0o666))
		_, stderr, code := runBinary(t, "run", "--config", path)
		assert.Equal(t, 2, code, tc.name)
		assert.Contains(t, stderr, path, tc.name)
		assert.Contains(t, stderr, tc.key+" = ", tc.name)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
	}
	_, stderr, code = runBinary(t, "run", "--config", filepath.Join("testdata", "report-a.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "report-a.json")
	assert.Contains(t, stderr, "regenerate it")
}
