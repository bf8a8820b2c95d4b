package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/poolbench"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/readylist"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/tracestress"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/trace"
)

// The seeds' published figures are typed once, in testdata/seeds.json at
// the module's top. These tests hold every other place that quotes one
// against that file: the constants that carry a figure, and the README,
// docs and comments that quote one in prose.

const seedFile = "../../testdata/seeds.json"

// seedFigure is one published figure with its public source.
type seedFigure struct {
	ID       string  `json:"id"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Measures string  `json:"measures"`
	Source   string  `json:"source"`
	Note     string  `json:"note"`
}

// readSeedFigures reads testdata/seeds.json and checks that every figure
// has a unique id, a unit, what it measures and a public source.
func readSeedFigures(t *testing.T) map[string]seedFigure {
	t.Helper()
	b, err := os.ReadFile(seedFile)
	require.NoError(t, err)
	var doc struct {
		About   string       `json:"about"`
		Figures []seedFigure `json:"figures"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&doc), seedFile)
	require.NotEmpty(t, doc.Figures)
	figs := map[string]seedFigure{}
	for _, f := range doc.Figures {
		_, dup := figs[f.ID]
		require.False(t, dup, "figure %q twice in %s", f.ID, seedFile)
		assert.NotEmpty(t, f.Unit, f.ID)
		assert.NotEmpty(t, f.Measures, f.ID)
		assert.Regexp(t, `^https://github\.com/[^/]+/[^/]+/(pull|commit|issues)/[0-9a-f]+$`, f.Source, "%s: a public PR, issue or commit", f.ID)
		figs[f.ID] = f
	}
	return figs
}

// seedValue is the value of an expression over seed figures: an id, or
// "id/id" for a ratio of two.
func seedValue(t *testing.T, figs map[string]seedFigure, expr string) float64 {
	t.Helper()
	num, den, isRatio := strings.Cut(expr, "/")
	f, ok := figs[num]
	require.True(t, ok, "no figure %q in %s", num, seedFile)
	if !isRatio {
		return f.Value
	}
	g, ok := figs[den]
	require.True(t, ok, "no figure %q in %s", den, seedFile)
	return f.Value / g.Value
}

// sameFigure reports whether quoted (digits, an optional decimal point and
// thousands separators) is value rounded to quoted's decimals.
func sameFigure(quoted string, value float64) bool {
	q, err := strconv.ParseFloat(strings.ReplaceAll(quoted, ",", ""), 64)
	if err != nil {
		return false
	}
	decimals := 0
	if _, frac, ok := strings.Cut(quoted, "."); ok {
		decimals = len(frac)
	}
	scale := math.Pow(10, float64(decimals))
	return math.Round(value*scale) == math.Round(q*scale)
}

// A seedQuote is a place that quotes seed figures: a file (from the
// module's top) and its words, with {expr} where a figure stands. White
// space in the words matches any white space, and a Go comment's line
// break.
type seedQuote struct {
	file, words string
}

// seedQuotes are the places that quote a seed figure. A new quote of one
// belongs here; a rewording of one of these must be made here too, or the
// test says the words are gone.
var seedQuotes = []seedQuote{
	{"README.md", "cut its pauses by about {sgen.second_run.improvement}% (mono/mono#20634)"},
	{"README.md", "SGen measured {sgen.trimmean10.batch_over_perjob} with 8 workers on an {sgen.cores}-core"},
	{"README.md", "SGen's shape, {sgen.cores} workers ({sgen.wakeups.perjob} jobs a collection)"},
	{"README.md", "the seed reported {eventpipe.events_read.gain_low}–{eventpipe.events_read.gain_high}×"},
	{"README.md", "(`--iterations {eventpipe.iterations} --duration {eventpipe.duration}s` is the seed's length)"},
	{"README.md", "The default is the seed experiment ({sgen.major_heap} GiB major heap, {sgen.los} GiB large-object space, {sgen.collections} collections per mode"},
	{"docs/predict.md", "beside SGen's {sgen.cores}-core {sgen.trimmean10.batch_over_perjob} (TrimMean 10%; its averages {sgen.avg.batch/sgen.avg.perjob})"},
	{"cmd/gcbench/run.go", "a {sgen.major_heap} GiB major heap, a {sgen.los} GiB large-object space, {sgen.collections} collections per mode"},
	{"cmd/gcbench/internal/modelcheck/manycore.go", "TrimMean 10% of its pauses, and its averages ({sgen.avg.batch}/{sgen.avg.perjob})"},
	{"cmd/gcbench/internal/seeds/tracestress/table.go", "(EventPipe measured {eventpipe.events_read.gain_low}–{eventpipe.events_read.gain_high}x)"},
	{"cmd/gcbench/internal/seeds/poolbench/pool.go", "(the seed: {dtp.throughput.items} items; {dtp.throughput.before} s before its fix, {dtp.throughput.after} s after)"},
	{"cmd/gcbench/internal/seeds/poolbench/pool.go", "(the seed: {dtp.latency.round_trips} round trips; {dtp.latency.before} s before, {dtp.latency.after} s after)"},
	{"cmd/gcbench/internal/seeds/readylist/readylist.go", "the ITERS of the stress-epoll run behind the seed commit's table ({epoll.events_per_thread};"},
}

var seedPlaceholder = regexp.MustCompile(`\{([a-z0-9_./]+)\}`)

// compile turns q's words into a pattern whose groups are its figures,
// in order, and returns the figures' expressions.
func (q seedQuote) compile() (*regexp.Regexp, []string) {
	var pat strings.Builder
	var exprs []string
	const space = `(?:\s|//)+`
	literal := func(s string) {
		words := strings.Fields(s)
		if len(words) == 0 {
			if s != "" {
				pat.WriteString(space)
			}
			return
		}
		if strings.TrimLeft(s, " \t\n") != s {
			pat.WriteString(space)
		}
		for i, word := range words {
			if i > 0 {
				pat.WriteString(space)
			}
			pat.WriteString(regexp.QuoteMeta(word))
		}
		if strings.TrimRight(s, " \t\n") != s {
			pat.WriteString(space)
		}
	}
	rest := q.words
	for _, loc := range seedPlaceholder.FindAllStringSubmatchIndex(q.words, -1) {
		start := len(q.words) - len(rest)
		literal(q.words[start:loc[0]])
		pat.WriteString(`([0-9][0-9,]*(?:\.[0-9]+)?)`)
		exprs = append(exprs, q.words[loc[2]:loc[3]])
		rest = q.words[loc[1]:]
	}
	literal(rest)
	return regexp.MustCompile(pat.String()), exprs
}

// TestREADMEDocsAndConstantsQuoteTheSeedFigures: every place that quotes a
// seed figure in prose (README, docs/, results pages, comments) still
// quotes it, and quotes the figure testdata/seeds.json holds, at the
// precision it shows.
func TestREADMEDocsAndConstantsQuoteTheSeedFigures(t *testing.T) {
	figs := readSeedFigures(t)
	for _, q := range seedQuotes {
		b, err := os.ReadFile("../../" + q.file)
		require.NoError(t, err)
		re, exprs := q.compile()
		// The words around the figures, with any number in their places,
		// find the quote even when its figures are wrong.
		matches := re.FindAllStringSubmatch(string(b), -1)
		if !assert.NotEmpty(t, matches, "%s no longer has the words %q: quote the figure as they do, or update seedQuotes", q.file, q.words) {
			continue
		}
		for _, m := range matches {
			for i, expr := range exprs {
				v := seedValue(t, figs, expr)
				assert.True(t, sameFigure(m[i+1], v), "%s quotes %s as %s; %s has %v (in %q)", q.file, expr, m[i+1], seedFile, v, m[0])
			}
		}
	}
}

// seedClaim is a sentence that states a seed's figure in prose ("SGen
// measured 0.734", "the seed reported 1.2–1.8×"): each one in the README,
// docs/ and the results pages must be a registered quote, so that it is
// checked.
var seedClaim = regexp.MustCompile(`\b(SGen|[Tt]he seed|EventPipe|DedicatedThreadPool|stress-epoll)\b[^.\n]{0,60}?\b(measured|reported)\b[^0-9.]{0,20}[0-9]`)

// TestREADMEAndDocsStateSeedFiguresOnlyInCheckedQuotes: a new sentence
// that states a seed's figure (seedClaim) in the README, docs/*.md or
// docs/results/*.md, outside the quotes seedQuotes lists, fails until it
// is registered there.
func TestREADMEAndDocsStateSeedFiguresOnlyInCheckedQuotes(t *testing.T) {
	files := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "docs/results/*.md"} {
		m, err := filepath.Glob("../../" + glob)
		require.NoError(t, err)
		require.NotEmpty(t, m, glob)
		for _, f := range m {
			files = append(files, strings.TrimPrefix(f, "../../"))
		}
	}
	for _, file := range files {
		b, err := os.ReadFile("../../" + file)
		require.NoError(t, err)
		var checked [][]int
		for _, q := range seedQuotes {
			if q.file == file {
				re, _ := q.compile()
				checked = append(checked, re.FindAllStringIndex(string(b), -1)...)
			}
		}
		for _, c := range seedClaim.FindAllStringIndex(string(b), -1) {
			inside := func(span []int) bool { return span[0] <= c[1] && c[0] <= span[1] }
			assert.True(t, slices.ContainsFunc(checked, inside), "%s states a seed's figure outside the checked quotes: %q; add it to seedQuotes", file, string(b)[c[0]:c[1]])
		}
	}
}

// TestConstantsAreTheSeedFigures: the constants that carry a seed figure,
// or a setting of the seed's experiment, hold the figure of
// testdata/seeds.json.
func TestConstantsAreTheSeedFigures(t *testing.T) {
	figs := readSeedFigures(t)
	v := func(expr string) float64 { return seedValue(t, figs, expr) }
	const gib, mib = 1 << 30, 1 << 20

	// SGen (mono/mono#20634). modelcheck's ratios are held by its own
	// TestSGenRatiosAreTheSeedFigures (they are unexported).
	cores := int(v("sgen.cores"))
	assert.Equal(t, v("sgen.wakeups.perjob"), float64(gcsim.JobCount(cores)), "a job per wake-up: major and LOS jobs and scan wbroots")
	assert.Equal(t, v("sgen.collections"), float64(gcsim.DefaultExperiment().GCs))
	// The seed says "GB" of a heap; gcbench reads it as GiB.
	assert.Equal(t, int64(v("sgen.major_heap")*gib), heap.DefaultConfig().MajorHeap)
	assert.Equal(t, int64(v("sgen.los")*gib), heap.DefaultConfig().LOS)

	// EventPipe (dotnet/runtime#50797).
	assert.Equal(t, v("eventpipe.events_read.gain_low"), tracestress.Target)
	assert.Equal(t, v("eventpipe.writers"), float64(tracestress.DefaultWriters))
	assert.Equal(t, v("eventpipe.payload"), float64(tracestress.DefaultPayload))
	assert.Equal(t, int64(v("eventpipe.buffer_limit")*mib), int64(trace.DefaultLimit))

	// DedicatedThreadPool (akkadotnet/akka.net#1569).
	assert.Equal(t, v("dtp.throughput.items"), float64(poolbench.DefaultItems))
	assert.Equal(t, v("dtp.latency.round_trips"), float64(poolbench.DefaultRoundTrips))

	// epoll (Linux commit a218cc491420): the producer counts of its table,
	// and the events each producer writes.
	assert.Equal(t, v("epoll.events_per_thread"), float64(readylist.DefaultEvents))
	for _, n := range readylist.DefaultProducers {
		for _, lock := range []string{"spinlock", "rwlock"} {
			_, ok := figs["epoll."+lock+"."+strconv.Itoa(n)+".events_per_ms"]
			assert.True(t, ok, "readylist's default sweeps %d producers; the seed's table has no %s row for them", n, lock)
		}
	}
}

// TestSeedFiguresAgreeWithEachOther: figures of one table that a
// transcription error would set apart. In stress-epoll's table every row's
// events/ms × run time is its threads × the events per thread.
func TestSeedFiguresAgreeWithEachOther(t *testing.T) {
	figs := readSeedFigures(t)
	v := func(expr string) float64 { return seedValue(t, figs, expr) }
	for _, lock := range []string{"spinlock", "rwlock"} {
		for _, n := range []int{8, 16, 32} {
			row := "epoll." + lock + "." + strconv.Itoa(n)
			events := v(row+".events_per_ms") * v(row+".run_ms")
			want := float64(n) * v("epoll.events_per_thread")
			assert.InEpsilon(t, want, events, 0.001, "%s: events/ms × run time", row)
		}
	}
	assert.Less(t, v("sgen.avg.batch"), v("sgen.avg.perjob"))
	assert.Less(t, v("sgen.avg.perjob"), v("sgen.avg.serial"))
	assert.Less(t, v("eventpipe.events_read.gain_low"), v("eventpipe.events_read.gain_high"))
}

func TestSameFigureRoundsToTheQuotesPrecision(t *testing.T) {
	for _, c := range []struct {
		quoted string
		value  float64
		same   bool
	}{
		{"3.88", 3.8819794, true}, {"3.9", 3.8819794, true}, {"3.87", 3.8819794, false}, {"4", 3.8819794, true},
		{"0.738", 1629.0 / 2206, true}, {"0.74", 1629.0 / 2206, true}, {"0.737", 1629.0 / 2206, false},
		{"10,000,000", 1e7, true}, {"1,000,000", 1e7, false}, {"2585", 2585, true}, {"2586", 2585, false}, {"x", 1, false},
	} {
		assert.Equal(t, c.same, sameFigure(c.quoted, c.value), "%s against %v", c.quoted, c.value)
	}
}

func TestSeedQuoteFindsWrongFigures(t *testing.T) {
	re, exprs := seedQuote{"", "SGen measured {a} on {b} cores"}.compile()
	assert.Equal(t, []string{"a", "b"}, exprs)
	m := re.FindStringSubmatch("threads backend; SGen measured\n0.75 on 8 cores.")
	require.NotNil(t, m, "a line break between the words")
	assert.Equal(t, []string{"0.75", "8"}, m[1:])
	re, _ = seedQuote{"", "(the seed: {x} items;"}.compile()
	m = re.FindStringSubmatch("\t// (the seed:\n\t// 10,000,000 items;")
	require.NotNil(t, m, "a Go comment's line break")
	assert.Equal(t, "10,000,000", m[1])
}
