package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resultsDir holds the pages docs/results/regen writes; -results names
// another (docs/results/regen --quick --out DIR's, to check the script's
// pages before committing any).
var resultsDir = flag.String("results", "../../docs/results", "the results pages' `directory` TestResultsPages* reads")

// repeats is how many runs a page's ratio comes from (CONTRIBUTING: at
// least three runs of the same command), and peerPasses the passes of the
// peers page (benchstat gives a finite 95% interval from 6 samples on).
const (
	repeats    = 3
	peerPasses = 6
)

var (
	pageCommand = regexp.MustCompile("(?m)^Command: `([^`]*)`")
	// loadLine is regen's line for each run (or the peers' first pass):
	// the load before it, under 1, or that regen gave up waiting.
	loadLine       = regexp.MustCompile(`(?m)^- (run|pass) (\d+), \d{4}-\d\d-\d\d \d\d:\d\d UTC: (.*)$`)
	loadUnderOne   = regexp.MustCompile(`^load average \(1, 5, 15 min\) ([0-9.]+) [0-9.]+ [0-9.]+ before the (run|pass)`)
	measuredAnyway = regexp.MustCompile(`^load ([0-9.]+) after waiting [0-9]+ (min|s): measured anyway`)
	// runsLoop is the command of a page made from repeated runs: the loop,
	// then report --runs over what it wrote (and, for a sweep, the first
	// sweep's own table).
	runsLoop  = regexp.MustCompile(`^for i in \$\(seq (\d+)\); do gcbench (.*?) (--format json --out run\$i\.json|--dir sweep\$i); done; gcbench report --runs ([^;]*) --format markdown(; gcbench report sweep1 --format markdown)?$`)
	peersLoop = regexp.MustCompile(`for p in \$\(seq (\d+)\); do \./peers\.test `)
)

// regenerate is what a page that fails the structure checks must do.
const regenerate = "; the page predates regen's load waits and three runs per ratio: regenerate it (docs/results/regen %s)"

// TestResultsPagesHaveTheShapeTheToolPrints: every results page was
// written by regen from the tool's Markdown, so each of its tables must
// have the header and the row labels that the same commands print today;
// the test reruns each page's commands small (as regen --quick does) and
// compares. A page whose tables drifted from the code must be regenerated.
// It also checks what CONTRIBUTING asks of a measurement: a load line
// before each run (under 1, or regen's "measured anyway"), and each ratio
// from three runs (three runs and report --runs, or a protocol's three
// repetitions; the peers' benchstat from six passes).
func TestResultsPagesHaveTheShapeTheToolPrints(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(*resultsDir, "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "%s has no pages: run docs/results/regen", *resultsDir)
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		t.Run(filepath.Base(page), func(t *testing.T) {
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			text := string(b)
			m := pageCommand.FindStringSubmatch(text)
			require.NotNil(t, m, "the page names no command (a line 'Command: `…`')")
			command := m[1]
			runs := checkLoadLines(t, name, text)

			if pm := peersLoop.FindStringSubmatch(command); pm != nil { // the peers page: benchstat's tables of the benchmarks module
				passes, _ := strconv.Atoi(pm[1])
				assert.GreaterOrEqual(t, passes, peerPasses, "the peers' passes: benchstat needs %d for a 95%% interval"+regenerate, peerPasses, name)
				assert.Equal(t, 1, runs, "the peers page waits once, before its first pass")
				assert.Contains(t, text, "sec/task", "the peers page is benchstat's table")
				assert.Contains(t, text, "vs base", "benchstat compares the pools with gcbench's")
				assert.False(t, strings.Contains(text, "± ∞"), "benchstat found too few samples for an interval (± ∞)"+regenerate, name)
				return
			}
			var args []string
			if lm := runsLoop.FindStringSubmatch(command); lm != nil {
				n, _ := strconv.Atoi(lm[1])
				require.Equal(t, repeats, n, "the page's loop runs its command %d times, want %d"+regenerate, n, repeats, name)
				require.Equal(t, repeats, runs, "a load line per run"+regenerate, name)
				args = strings.Fields(lm[2])
				checkRunsSummary(t, name, text, args[0])
			} else {
				c, ok := strings.CutPrefix(command, "gcbench ")
				require.True(t, ok, "the command is neither a loop of %d runs nor one gcbench protocol: %q"+regenerate, repeats, command, name)
				args = strings.Fields(c)
				if i := slices.Index(args, "--format"); i >= 0 && i+1 < len(args) {
					args = slices.Delete(args, i, i+2)
				}
				require.Contains(t, []string{"pool", "readylist", "trace-stress"}, args[0],
					"a single command is a protocol that repeats inside itself, not %q"+regenerate, args[0], name)
				require.Equal(t, 1, runs, "one run, one load line")
				repeat := map[string]string{"pool": "--repetitions", "readylist": "--repetitions", "trace-stress": "--iterations"}[args[0]]
				i := slices.Index(args, repeat)
				assert.True(t, i >= 0 && i+1 < len(args) && args[i+1] == strconv.Itoa(repeats),
					"the protocol repeats %d times (%s %d)"+regenerate, repeats, repeat, repeats, name)
			}
			stdout := rerunSmall(t, args, runsLoop.MatchString(command))
			assert.Equal(t, tableShapes(stdout), tableShapes(text), "tables of %s against `%s`, run small", page, command)
		})
	}
}

// checkLoadLines checks the page's load lines, numbered from 1: each
// under 1, or regen's note that it measured anyway. It returns how many
// there are.
func checkLoadLines(t *testing.T, name, text string) int {
	t.Helper()
	lines := loadLine.FindAllStringSubmatch(text, -1)
	require.NotEmpty(t, lines, "no load line per run ('- run N, DATE UTC: load average (1, 5, 15 min) … before the run')"+regenerate, name)
	n := 0
	for _, l := range lines {
		if l[1] == "pass" && l[2] != "1" { // the peers' later passes: recorded, not waited for
			continue
		}
		n++
		assert.Equal(t, strconv.Itoa(n), l[2], "load lines numbered from 1: %q", l[0])
		if u := loadUnderOne.FindStringSubmatch(l[3]); u != nil {
			v, err := strconv.ParseFloat(u[1], 64)
			require.NoError(t, err)
			assert.Less(t, v, 1.0, "%q: regen waits for a load under 1, or says it measured anyway", l[0])
			continue
		}
		assert.Regexp(t, measuredAnyway, l[3], "%q: the load before the run, or 'load L after waiting T: measured anyway'", l[0])
	}
	return n
}

// checkRunsSummary checks that the page states its ratios from three
// runs: report --runs' lines, and its table's rows per run.
func checkRunsSummary(t *testing.T, name, text, command string) {
	t.Helper()
	if command == "sweep" {
		assert.Contains(t, text, "3 sweeps of one grid", "the sweep page's runs summary"+regenerate, name)
		return
	}
	assert.Regexp(t, `(?m)^\*\*\S+ vs \S+ over 3 runs: median [0-9.]+% (shorter|longer) \(runs .*%, 95% bootstrap interval .*%\)\*\*$`, text,
		"the page's ratio over three runs, with its median, range and interval"+regenerate, name)
	for _, row := range []string{"| run 1 |", "| run 2 |", "| run 3 |", "| median |", "| range |", "| bootstrap interval |"} {
		assert.Contains(t, text, row, "the runs summary's rows"+regenerate, name)
	}
}

// rerunSmall runs a page's command at regen --quick's sizes and returns
// its Markdown: a protocol once; a loop's runs (run or sweep) repeats
// times, then report --runs over them (and a sweep's first table), as
// regen does.
func rerunSmall(t *testing.T, args []string, loop bool) string {
	t.Helper()
	args = quickArgs(args)
	if !loop {
		stdout, stderr, code := runBinary(t, append(args, "--format", "markdown")...)
		require.Equal(t, 0, code, stderr)
		return stdout
	}
	dir := t.TempDir()
	var outs []string
	for i := 1; i <= repeats; i++ {
		out := filepath.Join(dir, "run"+strconv.Itoa(i))
		run := append(slices.Clone(args), "--format", "json", "--out", out+".json")
		if args[0] == "sweep" {
			run = append(slices.Clone(args), "--dir", out)
		} else {
			out += ".json"
		}
		_, stderr, code := runBinary(t, run...)
		require.Equal(t, 0, code, stderr)
		outs = append(outs, out)
	}
	stdout, stderr, code := runBinary(t, append(append([]string{"report", "--runs"}, outs...), "--format", "markdown")...)
	require.Equal(t, 0, code, stderr)
	if args[0] == "sweep" {
		first, stderr, code := runBinary(t, "report", outs[0], "--format", "markdown")
		require.Equal(t, 0, code, stderr)
		stdout += "\n" + first
	}
	return stdout
}

// quickArgs is args at regen --quick's sizes (docs/results/regen's
// shrink, whose rule this mirrors): each size flag set, replacing the
// page's value or added.
func quickArgs(args []string) []string {
	out := slices.Clone(args)
	set := func(flag, value string) {
		if i := slices.Index(out, flag); i >= 0 && i+1 < len(out) {
			out[i+1] = value
			return
		}
		out = append(out, flag, value)
	}
	sizes := map[string][][2]string{
		"run":          {{"--major-heap", "64MiB"}, {"--los", "16MiB"}, {"--gcs", "20"}, {"--warmup", "2"}},
		"sweep":        {{"--major-heap", "64MiB"}, {"--los", "16MiB"}, {"--gcs", "5"}, {"--warmup", "1"}},
		"trace-stress": {{"--duration", "1s"}, {"--iterations", "1"}, {"--limit", "16MiB"}, {"--writers", "4"}},
		"pool":         {{"--items", "20000"}, {"--round-trips", "2000"}, {"--repetitions", "1"}},
		"readylist":    {{"--events", "20000"}, {"--repetitions", "1"}},
	}
	for _, fv := range sizes[out[0]] {
		set(fv[0], fv[1])
	}
	return out
}

// tableShapes is each Markdown table of text as its header line and the
// first cell of every row: what a table is, without its numbers.
func tableShapes(text string) [][]string {
	var tables [][]string
	var cur []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if cur != nil {
				tables, cur = append(tables, cur), nil
			}
			continue
		}
		if cur == nil {
			cur = []string{line} // the header, whole
			continue
		}
		if strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(line, "|")
		cur = append(cur, strings.TrimSpace(cells[1]))
	}
	if cur != nil {
		tables = append(tables, cur)
	}
	return tables
}
