package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The HTML reports opened in a real browser: Chromium, driven by chromedp,
// loads the file offline and the test reads what it rendered. .ci/run
// installs Chromium; elsewhere the test skips when none is installed, but
// under CI (CI=true) it fails instead, so that CI cannot pass without it.

// browserNames are the executables tried for Chromium, in order.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// findChromium returns the path of an installed Chromium, or skips the
// test (fails it under CI) if there is none.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range browserNames {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := fmt.Sprintf("no Chromium installed (looked for %s on PATH); apt-get install chromium", strings.Join(browserNames, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + ": CI must run the browser test")
	}
	t.Skip(msg)
	return ""
}

// renderedPage is what the browser shows of a report.
type renderedPage struct {
	Tables []renderedTable `json:"tables"`
	SVGs   []renderedSVG   `json:"svgs"`
	Open   []string        `json:"open"` // the ids inside open <details>
}

type renderedTable struct {
	Section string     `json:"section"`
	Rows    [][]string `json:"rows"` // the body's rows: heading cell, then data cells
	Heads   int        `json:"heads"`
}

type renderedSVG struct {
	Width, Height   string  // as the element states them
	BoxW, BoxH      float64 // as laid out, CSS px
	Paths, Texts    int
	Title, Caption  string
	VisibleInWindow bool
	Words           []string // every <text>'s content: titles, tick labels, legend entries
}

// readPage is the script that collects renderedPage from the document.
const readPage = `(() => ({
  tables: [...document.querySelectorAll("table")].map(t => ({
    section: t.closest("section").id,
    heads: t.querySelectorAll("thead th[scope=col]").length,
    rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.innerText.trim())),
  })),
  svgs: [...document.querySelectorAll("figure svg")].map(s => {
    const b = s.getBoundingClientRect();
    return {Width: s.getAttribute("width"), Height: s.getAttribute("height"), BoxW: b.width, BoxH: b.height,
      Paths: s.querySelectorAll("path").length, Texts: s.querySelectorAll("text").length,
      Title: s.querySelector("title") ? s.querySelector("title").textContent : "",
      Caption: s.closest("figure").querySelector("figcaption").textContent,
      VisibleInWindow: b.width > 0 && b.height > 0,
      Words: [...s.querySelectorAll("text")].map(e => e.textContent.trim())};
  }),
  open: [...document.querySelectorAll("details[open] [id]")].map(e => e.id),
}))()`

// browse opens the file at path in a headless Chromium with the network
// refused, evaluates readPage, saves a full-page screenshot as shot in the
// test's artifact directory, and returns what it read and every URL the
// page requested.
func browse(t *testing.T, chromium, path, fragment, shot string) (renderedPage, []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // Chromium refuses to run as root without it
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1024),
		chromedp.Flag("proxy-server", "127.0.0.1:9"), // nothing from the network, should the page ask
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTimeout()

	var mu sync.Mutex
	var requested []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) { // before the navigation, so as to see every request
		var url string
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			url = e.Request.URL
		case network.EventRequestWillBeSent:
			url = e.Request.URL
		default:
			return
		}
		mu.Lock()
		requested = append(requested, url)
		mu.Unlock()
	}))
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	u := (&url.URL{Scheme: "file", Path: abs, Fragment: fragment}).String()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("footer"))), "Chromium on %s", u)
	page, err := chromedp.Run(ctx, chromedp.Evaluate[renderedPage](readPage))
	require.NoError(t, err, "reading %s", u)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err, "screenshot of %s", u)
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), shot), png, 0o644))
	t.Logf("screenshot: %s", filepath.Join(t.ArtifactDir(), shot))
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, requested, "the browser reported no request, not even the page's")
	return page, slices.Clone(requested)
}

// textRows are the rows of the text tables in out, each normalized to its
// cells separated by single spaces, for comparing with the page's rows.
func textRows(out string) map[string]bool {
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		rows[strings.Join(strings.Fields(line), " ")] = true
	}
	return rows
}

// checkTablesAreTheText: every row the browser shows in sections is a
// row of the text output (its non-empty cells in order), and every row
// label of the text output shows.
func checkTablesAreTheText(t *testing.T, page renderedPage, text string, sections ...string) {
	t.Helper()
	want := textRows(text)
	n := 0
	for _, tab := range page.Tables {
		if !slices.Contains(sections, tab.Section) {
			continue
		}
		n++
		assert.Positive(t, tab.Heads, "a table without column headings")
		for _, r := range tab.Rows {
			cells := slices.DeleteFunc(slices.Clone(r), func(c string) bool { return c == "" })
			assert.True(t, want[strings.Join(strings.Fields(strings.Join(cells, " ")), " ")],
				"the page's row %q is not a row of the text output:\n%s", r, text)
		}
	}
	assert.Positive(t, n, "no table in sections %v", sections)
}

// checkPlots: every plot drew something, at the size its element states
// (points: 4/3 CSS px), with a title and a caption.
func checkPlots(t *testing.T, page renderedPage, want int) {
	t.Helper()
	require.Len(t, page.SVGs, want, "plots")
	for i, s := range page.SVGs {
		w, errW := strconv.ParseFloat(strings.TrimSuffix(s.Width, "pt"), 64)
		h, errH := strconv.ParseFloat(strings.TrimSuffix(s.Height, "pt"), 64)
		require.NoError(t, errW)
		require.NoError(t, errH)
		assert.InDelta(t, w*4/3, s.BoxW, 0.5, "plot %d (%s): laid out %.1f px wide, states %s", i+1, s.Caption, s.BoxW, s.Width)
		assert.InDelta(t, h*4/3, s.BoxH, 0.5, "plot %d (%s): laid out %.1f px high, states %s", i+1, s.Caption, s.BoxH, s.Height)
		assert.Greater(t, s.Paths, 10, "plot %d (%s) drew almost nothing", i+1, s.Caption)
		assert.Greater(t, s.Texts, 3, "plot %d (%s) has no title and axis labels", i+1, s.Caption)
		assert.NotEmpty(t, s.Title, "plot %d has no <title>", i+1)
		assert.NotEmpty(t, s.Caption, "plot %d has no caption", i+1)
	}
}

// checkOffline: the page asked for nothing but itself.
func checkOffline(t *testing.T, requested []string, path string) {
	t.Helper()
	for _, u := range requested {
		assert.True(t, strings.HasPrefix(u, "file://") && strings.Contains(u, filepath.Base(path)),
			"the page requested %s", u)
	}
}

// TestHTMLReportsInABrowser: `gcbench --html` and `gcbench report DIR
// --html` each write one file that Chromium opens offline with every table
// of the text output and every plot.
func TestHTMLReportsInABrowser(t *testing.T) {
	chromium := findChromium(t)
	t.Parallel() // the browser's seconds overlap the other tests' runs
	dir := t.TempDir()

	t.Run("run", func(t *testing.T) {
		html, saved := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.json")
		_, stderr, code := runBinary(t, tiny("--html", html, "--out", saved)...)
		require.Equal(t, 0, code, stderr)
		text, stderr, code := runBinary(t, "report", saved)
		require.Equal(t, 0, code, stderr)
		page, requested := browse(t, chromium, html, "", "run.png")
		checkTablesAreTheText(t, page, text, "pauses", "anatomy")
		require.Len(t, page.Tables, 2, "the pause table and the anatomy")
		labels := func(tab renderedTable) []string {
			var ls []string
			for _, r := range tab.Rows {
				ls = append(ls, r[0])
			}
			return ls
		}
		assert.Equal(t, []string{"Stdev", "Avg", "TrimMean 10%", "TrimMean 25%", "Min", "Q1", "Q2", "Q3", "p90", "p99", "p99.9", "Max",
			"p-value", "n", "host-GC disturbed"},
			labels(page.Tables[0]))
		assert.Contains(t, labels(page.Tables[1]), "sum of the parts")
		checkPlots(t, page, 4) // histograms, box plots, CDFs, anatomy
		checkOffline(t, requested, html)
	})

	t.Run("sweep", func(t *testing.T) {
		points := filepath.Join(dir, "points")
		require.NoError(t, os.Mkdir(points, 0o755))
		writeSweepPoints(t, points, "1", "2", "4")
		html := filepath.Join(dir, "s.html")
		_, stderr, code := runBinary(t, "report", points, "--html", html)
		require.Equal(t, 0, code, stderr)
		text, stderr, code := runBinary(t, "report", points)
		require.Equal(t, 0, code, stderr)
		page, requested := browse(t, chromium, html, "point-2", "sweep.png")
		checkTablesAreTheText(t, page, text, "scaling")
		checkPlots(t, page, 3) // the ratio, futile wake-ups, futex calls
		checkOffline(t, requested, html)
		var pointTables int
		for _, tab := range page.Tables {
			if tab.Section == "points" {
				pointTables++
			}
		}
		assert.Equal(t, 3, pointTables, "a pause table per point")
		assert.Equal(t, []string{"point-2"}, page.Open, "a link to a point opens its report")
		checkNativeSweepPlots(t, page)
	})
}

// checkNativeSweepPlots: the points (testdata/report-a.json's, which
// count no futex calls, as the Native backend's do not) draw no
// futex-calls line, and the ratio axis labels 1.
func checkNativeSweepPlots(t *testing.T, page renderedPage) {
	t.Helper()
	var ratio, futex *renderedSVG
	for i, s := range page.SVGs {
		switch {
		case strings.Contains(s.Caption, "TrimMean"):
			ratio = &page.SVGs[i]
		case strings.Contains(s.Caption, "futex calls"):
			futex = &page.SVGs[i]
		}
	}
	require.NotNil(t, ratio, "no ratio plot")
	require.NotNil(t, futex, "no futex-calls plot")
	for _, w := range futex.Words {
		assert.NotContains(t, []string{"perjob", "batch"}, w, "the futex-calls plot of points that counted none draws a line: %q", futex.Words)
	}
	assert.True(t, slices.ContainsFunc(ratio.Words, func(w string) bool {
		v, err := strconv.ParseFloat(w, 64)
		return err == nil && v == 1 && strings.Contains(w, ".")
	}), "the ratio axis has no label 1.0: %q", ratio.Words)
}

// writeSweepPoints writes one point per worker count into dir: the saved
// run of testdata/report-a.json with its configuration's workers set.
func writeSweepPoints(t *testing.T, dir string, workers ...string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "report-a.json"))
	require.NoError(t, err)
	for _, w := range workers {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		doc["config"].(map[string]any)["workers"] = w
		out, err := json.Marshal(doc)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "workers"+w+".json"), out, 0o644))
	}
}
