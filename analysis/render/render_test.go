package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

func render(t *testing.T, r *report.Report, f Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r, f); err != nil {
		t.Fatalf("Render(%v): %v", f, err)
	}
	return b.Bytes()
}

func TestGoldenRenderers(t *testing.T) {
	r := fixtureReport(t)
	for _, f := range []Format{Text, Markdown, CSV, JSON} {
		t.Run(f.String(), func(t *testing.T) {
			golden(t, "fixture."+map[Format]string{Text: "txt", Markdown: "md", CSV: "csv", JSON: "json"}[f], render(t, r, f))
		})
	}
}

func TestGoldenMerged(t *testing.T) {
	a := fixtureReport(t)
	b := fixtureReport(t)
	b.Runs[0].Host.Hostname = "bench-b"
	for i := range b.Runs[0].Modes {
		for j := range b.Runs[0].Modes[i].Pauses {
			b.Runs[0].Modes[i].Pauses[j] *= 1.25
		}
	}
	m, err := report.Merge(a, rederived(t, b))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "merged.txt", render(t, m, Text))
	golden(t, "merged.csv", render(t, m, CSV))
}

func TestGoldenPlotSVG(t *testing.T) {
	var b bytes.Buffer
	if err := WritePlot(&b, fixtureReport(t), "svg"); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, b.Bytes())
	golden(t, "fixture.svg", b.Bytes())
}

func checkSVG(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
}

// TestWritePlotOfATinySpan: pauses a few subnormals apart, which ReadJSON
// accepts, give bins of no width; the histogram widens its span as for
// equal pauses instead of indexing a bin with int(NaN).
func TestWritePlotOfATinySpan(t *testing.T) {
	run, err := report.NewRun(report.Host{Hostname: "h"}, []report.ModeInput{{Name: "a", Pauses: []float64{0, 1e-323}}, {Name: "b", Pauses: []float64{0, 1e-323}}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlot(&b, report.NewReport("pause", nil, run), "svg"); err != nil || b.Len() == 0 {
		t.Fatalf("WritePlot: %v, %d bytes", err, b.Len())
	}
}

func TestWritePlot(t *testing.T) {
	r := fixtureReport(t)
	var png1 bytes.Buffer
	if err := WritePlot(&png1, r, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&png1)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 900 {
		t.Errorf("PNG is %v, want a full page", b)
	}
	var svg bytes.Buffer
	if err := WritePlot(&svg, r, "svg"); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg.Bytes())
	if err := WritePlot(&bytes.Buffer{}, r, "gif"); err == nil {
		t.Error("WritePlot(gif) drew something")
	}
}

func TestCSVParses(t *testing.T) {
	recs, err := csv.NewReader(bytes.NewReader(render(t, fixtureReport(t), CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"statistic", "serial", "perjob", "batch", "batch vs serial improvement %", "batch vs perjob improvement %", "config", "host"}
	if strings.Join(recs[0], "|") != strings.Join(want, "|") {
		t.Errorf("header %q, want %q", recs[0], want)
	}
	if recs[2][0] != "Avg" || len(recs) != 1+len(tableStatistics)+3 {
		t.Errorf("rows: %q", recs)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := fixtureReport(t)
	first := render(t, r, JSON)
	back, err := report.ReadJSON(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if second := render(t, back, JSON); !bytes.Equal(first, second) {
		t.Errorf("JSON does not round-trip:\n%s\n---\n%s", first, second)
	}
	if !bytes.Equal(render(t, r, Text), render(t, back, Text)) {
		t.Error("text of a read-back report differs")
	}
	var generic map[string]any
	if err := json.Unmarshal(first, &generic); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "title", "unit", "config", "runs"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add(string(render(&testing.T{}, fixtureReport(f), JSON)))
	f.Add(`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1,2,3],"disturbed":[0]}]}]}`)
	// A subnormal base makes an improvement overflow to -Inf, which JSON cannot hold.
	f.Add(`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1e-310,1e-310]},{"name":"b","pauses_us":[1e15,1e15]}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := report.ReadJSON(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, report.ErrSchema) && !errors.Is(err, report.ErrInvalidInput) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		// Whatever was accepted renders in every format and round-trips.
		for _, f := range []Format{Text, Markdown, CSV} {
			if err := Write(io.Discard, r, f); err != nil {
				t.Fatalf("Render(%v): %v", f, err)
			}
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := report.ReadJSON(&b); err != nil {
			t.Fatalf("re-reading an accepted report: %v", err)
		}
	})
}

func TestMergedRunsOfOneHostAreNumbered(t *testing.T) {
	later := fixtureReport(t)
	later.Runs[0].Started = later.Runs[0].Started.Add(time.Hour)
	m, err := report.Merge(fixtureReport(t), later)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.SplitN(string(render(t, m, CSV)), "\n", 2)[0]
	if !strings.Contains(head, "bench-a #1/serial") || !strings.Contains(head, "bench-a #2/batch") {
		t.Errorf("CSV header %q does not tell the runs apart", head)
	}
}

func TestParseFormat(t *testing.T) {
	for _, name := range FormatNames() {
		f, err := ParseFormat(strings.ToUpper(name))
		if err != nil || f.String() != name {
			t.Errorf("ParseFormat(%q) = %v, %v", name, f, err)
		}
	}
	if _, err := ParseFormat("yaml"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
}

// TestPlotEdgeSamples draws samples at the edges of what ReadJSON accepts:
// all equal below 1 µs (gonum's ±1 widening of an empty range used to go
// negative on the log axis and panic), and positive pauses below 1e-323 µs
// (the log axis's tick loop never ended).
func TestPlotEdgeSamples(t *testing.T) {
	for _, ps := range [][]float64{{5, 5, 5}, {0.5, 0.5}, {0.001}, {1e-300, 1e-300}, {5e-324}, {5e-324, report.MaxPause}, {0, 0}, {0, report.MaxPause}} {
		run, err := report.NewRun(report.Host{}, []report.ModeInput{{Name: "a", Pauses: ps}, {Name: "b", Pauses: ps}})
		if err != nil {
			t.Fatal(err)
		}
		r := report.NewReport("edge", nil, run)
		for _, f := range PlotFormats {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("WritePlot(%v, %s) panicked: %v", ps, f, p)
					}
				}()
				if err := WritePlot(io.Discard, r, f); err != nil {
					t.Errorf("WritePlot(%v, %s) = %v", ps, f, err)
				}
			}()
		}
	}
}

// TestMarkdownEscapesFileText: a title or mode name read from a file may
// hold "|" or a line break; neither may split the Markdown table.
func TestMarkdownEscapesFileText(t *testing.T) {
	run, err := report.NewRun(report.Host{Hostname: "h|1"}, []report.ModeInput{{Name: "a|b", Pauses: []float64{1, 2}}, {Name: "c\nd", Pauses: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, report.NewReport("pause|s\nx", nil, run)); err != nil {
		t.Fatal(err)
	}
	cells := func(line string) int { return strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") }
	var table []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, line)
		}
	}
	if len(table) != 2+len(tableRows()) {
		t.Fatalf("table has %d lines, want %d:\n%s", len(table), 2+len(tableRows()), b.String())
	}
	for _, line := range table {
		if cells(line) != cells(table[1]) {
			t.Errorf("line %q has %d cell borders, the separator %d", line, cells(line), cells(table[1]))
		}
	}
	if strings.HasPrefix(strings.Split(b.String(), "\n")[1], "x") {
		t.Error("the title's line break ended the heading")
	}
}

// TestLineBreaksInFileTextStayInTheirLine: in text, a mode name, title
// or host read from a file with a line break keeps the table's rows whole;
// in Markdown, a configuration value with one stays in its list item.
func TestLineBreaksInFileTextStayInTheirLine(t *testing.T) {
	run, err := report.NewRun(report.Host{Hostname: "h\n1"}, []report.ModeInput{{Name: "a", Pauses: []float64{1, 2}}, {Name: "c\nd", Pauses: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewReport("pause\nx", report.Config{{Key: "k", Value: "a\n\n# b"}}, run)
	text := string(render(t, r, Text))
	for _, line := range strings.Split(text, "\n") {
		if line == "d" || strings.HasPrefix(line, "d ") || strings.HasPrefix(line, "x") || line == "1" {
			t.Fatalf("a line break split a line of the text table at %q:\n%s", line, text)
		}
	}
	if !strings.Contains(text, "c d") {
		t.Fatalf("the mode name is not shown on one line:\n%s", text)
	}
	md := string(render(t, r, Markdown))
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# b") {
			t.Fatalf("a configuration value became a Markdown heading:\n%s", md)
		}
	}
}

func TestPartialRunIsMarkedInEveryFormat(t *testing.T) {
	r := fixtureReport(t)
	r.Runs[0].Partial = "interrupted by SIGINT after 3 of 10 collections per mode"
	for _, f := range []Format{Text, Markdown, JSON, CSV} {
		if out := string(render(t, r, f)); !strings.Contains(out, r.Runs[0].Partial) {
			t.Errorf("%v does not say the run is partial:\n%s", f, out)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(render(t, r, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		if rec[len(rec)-1] != r.Runs[0].Partial {
			t.Errorf("CSV record %q does not end in the partial mark", rec)
		}
	}
	back, err := report.ReadJSON(bytes.NewReader(render(t, r, JSON)))
	if err != nil || back.Runs[0].Partial != r.Runs[0].Partial {
		t.Errorf("JSON round trip lost the partial mark: %v, %q", err, back.Runs[0].Partial)
	}
	if out := string(render(t, fixtureReport(t), Text)); strings.Contains(out, "PARTIAL") {
		t.Errorf("a whole run is marked partial:\n%s", out)
	}
}

// TestCSVCarriesWarnings: CSV has no preamble, so a fact that qualifies
// every row (a partial run, a truncated trace) is a column of its own;
// other facts stay out of the rows.
func TestCSVCarriesWarnings(t *testing.T) {
	tab := &Table{Title: "t", Facts: []Fact{{Key: "host", Value: "h"}, {Key: "PARTIAL", Value: "interrupted", Warning: true}},
		Header: [][]string{{"mode", "mean"}}, Rows: [][]string{{"a", "1"}, {"b", "2"}}}
	var b strings.Builder
	if err := tab.Write(&b, CSV); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"mode", "mean", "partial"}, {"a", "1", "interrupted"}, {"b", "2", "interrupted"}}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("CSV %q, want %q", recs, want)
	}
	if len(tab.Rows[0]) != 2 {
		t.Error("writing the CSV changed the table's rows")
	}
}

// TestMergedAnatomyNamesTheHosts: a merged report's anatomy heads each
// column with its host, as the pause table does, and a warning names the
// host whose parts do not add up.
func TestMergedAnatomyNamesTheHosts(t *testing.T) {
	a, b := fixtureReport(t), fixtureReport(t)
	b.Runs[0].Host.Hostname = "bench-b"
	for _, r := range []*report.Report{a, b} {
		r.Anatomy = &report.Anatomy{Parts: []report.AnatomyRow{{Key: "all", Label: "all of it"}}}
		for i := range r.Runs[0].Modes {
			m := &r.Runs[0].Modes[i]
			m.CounterMeans = map[string]float64{"all": m.Summary.Mean}
		}
	}
	b.Runs[0].Modes[0].CounterMeans["all"]++ // off by 1 µs
	m, err := report.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	tab := AnatomyTable(m)
	if len(tab.Header) != 2 || !slices.Contains(tab.Header[0], "bench-b") || !slices.Contains(tab.Header[0], a.Runs[0].Host.Label()) {
		t.Errorf("header %q: want a line of hosts above the modes", tab.Header)
	}
	if notes := strings.Join(tab.Notes, "\n"); !strings.Contains(notes, "on bench-b add up to") {
		t.Errorf("notes %q: the warning should name bench-b", notes)
	}
}

// TestConfigShowsInItsOrder: every renderer that shows the configuration
// shows its pairs in the report's order, not sorted.
func TestConfigShowsInItsOrder(t *testing.T) {
	r := fixtureReport(t)
	r.Config = report.Config{{Key: "major_heap", Value: "2.5GiB"}, {Key: "workers", Value: "2"}, {Key: "gcs", Value: "200"}}
	line := "major_heap=2.5GiB workers=2 gcs=200"
	for _, f := range []Format{Text, Markdown} {
		if out := string(render(t, r, f)); !strings.Contains(out, line) {
			t.Errorf("%v: no %q in\n%.300s", f, line, out)
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil || !strings.Contains(page.String(), line) {
		t.Errorf("HTML: %v, or no %q", err, line)
	}
	var hdr bytes.Buffer
	if err := WriteHDRLog(&hdr, r, 100); err != nil || !strings.Contains(hdr.String(), line) {
		t.Errorf("HDR log: %v, or no %q", err, line)
	}
	bench := string(render(t, r, Bench))
	if !strings.Contains(bench, "cpu: "+reporttest.Machine.CPUModel+"\nmajor_heap: 2.5GiB\ngcs: 200\nhost-gomaxprocs: 2\n") {
		t.Errorf("bench: the configuration's keys are not in its order after goos, goarch and cpu:\n%.300s", bench)
	}
}
