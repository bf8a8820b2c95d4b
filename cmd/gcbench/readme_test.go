package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README shows only what the code does today: these tests tie its
// examples to code that runs.

// codeOnly drops comments and white space, so that a README line and the
// gofmt'ed code it was copied from compare equal.
func codeOnly(s string) string {
	s = regexp.MustCompile(`//[^\n]*`).ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), "")
}

func TestREADMELibrarySnippetIsTheRunnableExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), "## The library in ten lines\n\n```go\n")
	require.True(t, ok, "the README has the library section")
	snippet, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	example, err := os.ReadFile("../../workerpool/readme_example_linux_test.go")
	require.NoError(t, err)
	// The example wraps the snippet in a function returning error; the
	// snippet's one-line error checks are gofmt'ed there.
	assert.Contains(t, codeOnly(string(example)), codeOnly(snippet), "README snippet and Example_readme differ")
}

// TestREADMEShowsTheRowsTheCodePrints: the README shows one output block,
// the default run's, and its lines — the title, config and host lines, the
// tables' headers and row labels, the footers — are the ones the code
// prints today, in the same order.
func TestREADMEShowsTheRowsTheCodePrints(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	stdout, stderr, code := runBinary(t, tiny()...)
	require.Equal(t, 0, code, stderr)
	labels := func(out string) []string {
		var ls []string
		for _, line := range strings.Split(out, "\n") {
			for _, l := range []string{"gcbench: minor-collection pause", "config:", "host:", "minor-collection pause (µs)",
				"Stdev", "Avg", "TrimMean 10%", "TrimMean 25%", "Min", "Q1", "Q2", "Q3", "p90", "p99", "p99.9", "Max", "p-value", "n",
				"host-GC disturbed", "Improvement =", "Median with 95% confidence interval", "pause anatomy:", "part",
				"card preparation", "sum of the parts", "mean pause (Avg)", "futex calls", "The parts add up"} {
				if strings.HasPrefix(line, l+" ") {
					ls = append(ls, l)
				}
			}
		}
		return ls
	}
	printed := labels(stdout)
	blocks := regexp.MustCompile("(?s)```\ngcbench: minor-collection pause\n.*?```").FindAllString(string(readme), -1)
	require.Len(t, blocks, 1, "the README shows one output block, the default run's")
	for _, b := range blocks {
		assert.Equal(t, printed, labels(b), "a README table's rows differ from what run prints:\n%s", b)
	}
}

// TestGlossaryDefinesEachTermOnceAndTheREADMELinksIt: docs/methodology.md's
// glossary defines each term under one anchor, every link into it names
// an anchor that exists, and the README links the terms it uses.
func TestGlossaryDefinesEachTermOnceAndTheREADMELinksIt(t *testing.T) {
	doc, err := os.ReadFile("../../docs/methodology.md")
	require.NoError(t, err)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, glossary, ok := strings.Cut(string(doc), "\n## Glossary\n")
	require.True(t, ok, "methodology.md has a glossary")
	glossary, _, _ = strings.Cut(glossary, "\n## ")
	anchors := map[string]int{}
	for _, m := range regexp.MustCompile(`<a id="([a-z-]+)"></a>`).FindAllStringSubmatch(string(doc), -1) {
		anchors[m[1]]++
	}
	for _, term := range []string{"seed", "gate", "futile-wake-up", "herd", "pi", "host-gc-disturbed", "caravan", "verdict", "percentile"} {
		assert.Contains(t, glossary, `<a id="`+term+`"></a>`, "the glossary does not define %s", term)
		assert.Equal(t, 1, anchors[term], "%s is defined %d times", term, anchors[term])
	}
	for _, m := range regexp.MustCompile(`methodology\.md#([a-z-]+)`).FindAllStringSubmatch(string(readme), -1) {
		assert.Equal(t, 1, anchors[m[1]], "the README links #%s, which methodology.md does not define once", m[1])
	}
	for _, term := range []string{"seed", "gate", "pi", "futile-wake-up", "herd", "caravan"} {
		assert.Contains(t, string(readme), "docs/methodology.md#"+term, "the README uses %s without linking its definition", term)
	}
}
