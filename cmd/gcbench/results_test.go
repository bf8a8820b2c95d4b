package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resultsDir holds the pages docs/results/regen writes.
const resultsDir = "../../docs/results"

var pageCommand = regexp.MustCompile("(?m)^Command: `([^`]*)`")

// TestResultsPagesHaveTheShapeTheToolPrints: every results page was
// written by regen from the tool's Markdown, so each of its tables must
// have the header and the row labels that the same command prints today;
// the test reruns each page's command small (as regen --quick does) and
// compares. A page whose tables drifted from the code must be regenerated.
func TestResultsPagesHaveTheShapeTheToolPrints(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(resultsDir, "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "docs/results has no pages: run docs/results/regen")
	for _, page := range pages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			b, err := os.ReadFile(page)
			require.NoError(t, err)
			m := pageCommand.FindSubmatch(b)
			require.NotNil(t, m, "the page names no command (a line 'Command: `…`')")
			command, isGcbench := strings.CutPrefix(string(m[1]), "gcbench ")
			if !isGcbench { // the peers page: benchstat's tables of the benchmarks module
				assert.Contains(t, string(b), "sec/task", "a page not of gcbench's is benchstat's table of the peers")
				return
			}
			args := quickArgs(strings.Fields(command))
			if args[0] == "sweep" { // regen sweeps into a directory, then reports on it
				dir := t.TempDir()
				_, stderr, code := runBinary(t, append(args, "--dir", dir)...)
				require.Equal(t, 0, code, stderr)
				args = []string{"report", dir}
			}
			args = append(args, "--format", "markdown")
			stdout, stderr, code := runBinary(t, args...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, tableShapes(stdout), tableShapes(string(b)), "tables of %s against `gcbench %s`", page, strings.Join(args, " "))
		})
	}
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
