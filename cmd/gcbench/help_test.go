package main

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unwrapHelp joins the continuation lines of --help's flag descriptions
// (indented deeper than any flag line) to the line they continue, so that
// a test can look for a phrase or a flag's "(default …)" wherever the
// wrapping broke it.
func unwrapHelp(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if len(out) > 0 && strings.HasPrefix(line, strings.Repeat(" ", 8)) {
			out[len(out)-1] += " " + strings.TrimLeft(line, " ")
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestHelpFitsAndListsCommands: every command's --help (and `gcbench
// help`) keeps within helpColumns, and `gcbench --help`, the first thing a
// newcomer types, ends with every command.
func TestHelpFitsAndListsCommands(t *testing.T) {
	names := slices.Sorted(maps.Keys(commands()))
	runs := [][]string{{"--help"}, {"help"}}
	for _, n := range names {
		runs = append(runs, []string{n, "--help"})
	}
	for _, args := range runs {
		stdout, stderr, code := runBinary(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
		require.NotEmpty(t, stdout, "%v", args)
		for i, line := range strings.Split(stdout, "\n") {
			assert.LessOrEqual(t, utf8.RuneCountInString(line), helpColumns, "gcbench %v, line %d is too wide:\n%s", args, i+1, line)
		}
	}

	stdout, _, _ := runBinary(t, "--help")
	_, list, ok := strings.Cut(stdout, "\ncommands:\n")
	require.True(t, ok, "gcbench --help lists the commands:\n%s", stdout)
	for _, n := range names {
		assert.Regexp(t, regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(n)+` +\S`), list, "gcbench --help names %s", n)
	}
	assert.True(t, strings.HasSuffix(stdout, "'gcbench COMMAND --help' documents a command's flags.\n"), "the list ends --help")
}

// TestSweepHelpNamesEveryGridFlag: the sentence of `sweep --help` that
// defines a point names every list flag that spans the grid (all but
// --modes, which each point compares).
func TestSweepHelpNamesEveryGridFlag(t *testing.T) {
	stdout, stderr, code := runBinary(t, "sweep", "--help")
	require.Equal(t, 0, code, stderr)
	text := strings.Join(strings.Fields(stdout), " ")
	_, rest, ok := strings.Cut(text, "every combination of ")
	require.True(t, ok, "sweep --help says what a point is:\n%s", stdout)
	sentence, _, ok := strings.Cut(rest, " is one point")
	require.True(t, ok)
	lists := regexp.MustCompile(`(?m)^\s+--([a-z-]+) list\s`).FindAllStringSubmatch(stdout, -1)
	require.NotEmpty(t, lists)
	for _, m := range lists {
		if m[1] == "modes" {
			continue
		}
		assert.Regexp(t, `--`+m[1]+`\b`, sentence, "the grid sentence leaves out --%s", m[1])
	}
}

// TestRunHelpSaysWhatATraceLacks: --trace promises wakes, which the
// native backend's workers (in C) do not report: the help says so.
func TestRunHelpSaysWhatATraceLacks(t *testing.T) {
	stdout, stderr, code := runBinary(t, "run", "--help")
	require.Equal(t, 0, code, stderr)
	text := strings.Join(strings.Fields(unwrapHelp(stdout)), " ")
	assert.Contains(t, text, "wakes (not on the native backend")
	assert.Contains(t, text, "collections (named by mode)")
}
