package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPredictChecksTheModelThenPredicts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "points")
	_, stderr, code := runBinary(t, sweepTiny(dir)...)
	require.Equal(t, 0, code, stderr)
	stdout, stderr, code := runBinary(t, "predict", "--dir", dir, "--major-heap", "64MiB", "--los", "16MiB", "--cores", "4,8",
		"--calibration-gcs", "3", "--calibrations", "2")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"calibration on", "median of 2 runs", "calibration runs' range", "wake-to-run", "model check: measured vs predicted",
		"Mean absolute error of perjob−batch", "prediction at the seed's shape (64MiB + 16MiB", "SGen, 8 cores"} {
		assert.Contains(t, stdout, want)
	}
	check, prediction, ok := strings.Cut(stdout, "prediction at the seed's shape")
	require.True(t, ok)
	rows := 0
	for _, l := range strings.Split(check, "\n") {
		if strings.HasPrefix(l, "broadcast ") || strings.HasPrefix(l, "targeted ") {
			rows++
		}
	}
	assert.Equal(t, 4, rows, "one row per sweep point:\n%s", check)
	for _, c := range []string{"\n4 ", "\n8 "} {
		assert.Contains(t, prediction, c, "a row per --cores")
	}
}

func TestPredictBadUsage(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"predict"}, 2},
		{[]string{"predict", "--dir", empty}, 2},
		{[]string{"predict", "--dir", empty, "--cores", "0"}, 2},
		{[]string{"predict", "--dir", empty, "--calibrations", "0"}, 2},
		{[]string{"predict", "--dir", filepath.Join(empty, "missing")}, 1},
	} {
		stdout, stderr, code := runBinary(t, tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Empty(t, stdout, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: one line: %q", tc.args, stderr)
	}
}
