package analysis

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
)

func render(t *testing.T, r *Report, f Format) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Render(&b, f); err != nil {
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
	if err := b.Runs[0].derive(); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "merged.txt", render(t, m, Text))
	golden(t, "merged.csv", render(t, m, CSV))
}

func TestGoldenPlotSVG(t *testing.T) {
	var b bytes.Buffer
	if err := fixtureReport(t).WritePlot(&b, "svg"); err != nil {
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
	run, err := NewRun(Host{Hostname: "h"}, []ModeInput{{Name: "a", Pauses: []float64{0, 1e-323}}, {Name: "b", Pauses: []float64{0, 1e-323}}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := NewReport("pause", nil, run).WritePlot(&b, "svg"); err != nil || b.Len() == 0 {
		t.Fatalf("WritePlot: %v, %d bytes", err, b.Len())
	}
}

func TestWritePlot(t *testing.T) {
	r := fixtureReport(t)
	var png1 bytes.Buffer
	if err := r.WritePlot(&png1, "png"); err != nil {
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
	if err := r.WritePlot(&svg, "svg"); err != nil {
		t.Fatal(err)
	}
	checkSVG(t, svg.Bytes())
	if err := r.WritePlot(&bytes.Buffer{}, "gif"); err == nil {
		t.Error("WritePlot(gif) drew something")
	}
}

func TestCSVParses(t *testing.T) {
	recs, err := csv.NewReader(bytes.NewReader(render(t, fixtureReport(t), CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"statistic", "serial", "perjob", "batch", "batch vs serial improvement %", "batch vs perjob improvement %"}
	if strings.Join(recs[0], "|") != strings.Join(want, "|") {
		t.Errorf("header %q, want %q", recs[0], want)
	}
	if recs[2][0] != "Avg" || len(recs) != 1+len(TableStatistics)+3 {
		t.Errorf("rows: %q", recs)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := fixtureReport(t)
	first := render(t, r, JSON)
	back, err := ReadJSON(bytes.NewReader(first))
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

func TestReadJSONRecomputesDerivedValues(t *testing.T) {
	data := render(t, fixtureReport(t), JSON)
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	mode0 := raw["runs"].([]any)[0].(map[string]any)["modes"].([]any)[0].(map[string]any)
	mode0["summary"].(map[string]any)["mean"] = 1.0
	mode0["disturbed_count"] = 42.0
	edited, _ := json.Marshal(raw)
	back, err := ReadJSON(bytes.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	m := back.Runs[0].Modes[0]
	if m.Summary.Mean == 1 || m.DisturbedCount != 2 {
		t.Errorf("ReadJSON kept edited derived values: mean %v, disturbed %d", m.Summary.Mean, m.DisturbedCount)
	}
}

func TestMergeRejectsARunTwice(t *testing.T) {
	if _, err := Merge(fixtureReport(t), fixtureReport(t)); !errors.Is(err, ErrDuplicateRun) {
		t.Errorf("merging a report with itself: err = %v, want ErrDuplicateRun", err)
	}
	other := fixtureReport(t)
	other.Runs[0].Modes[0].Pauses[0]++
	if _, err := Merge(fixtureReport(t), other); err != nil {
		t.Errorf("runs whose samples differ are not duplicates: %v", err)
	}
}

func TestReadJSONRejects(t *testing.T) {
	tests := map[string]struct {
		in   string
		want error
	}{
		"garbage":         {"not json", ErrSchema},
		"empty":           {"", ErrSchema},
		"wrong kind":      {`{"schema":"other/v9","runs":[]}`, ErrSchema},
		"a scaling table": {`{"schema":"` + ScalingSchema + `","base":"perjob","new":"batch","points":[]}`, ErrSchema},
		"wrong unit":      {`{"schema":"` + Schema + `","unit":"ms","runs":[]}`, ErrSchema},
		"no runs":         {`{"schema":"` + Schema + `","unit":"µs","runs":[]}`, ErrInvalidInput},
		"no modes":        {`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[]}]}`, ErrInvalidInput},
		"empty mode":      {`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[]}]}]}`, ErrInvalidInput},
		"bad index":       {`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1],"disturbed":[1]}]}]}`, ErrInvalidInput},
		"bad elapsed": {`{"schema":"` + Schema + `","unit":"µs","runs":[{"elapsed":"soon","modes":[{"name":"a","pauses_us":[1]}]}]}`,
			ErrSchema},
		"absurd cores": {`{"schema":"` + Schema + `","unit":"µs","runs":[{"host":{"cores":2000000000},"modes":[{"name":"a","pauses_us":[1]}]}]}`,
			ErrInvalidInput},
		"negative GOMAXPROCS": {`{"schema":"` + Schema + `","unit":"µs","runs":[{"host":{"gomaxprocs":-1},"modes":[{"name":"a","pauses_us":[1]}]}]}`,
			ErrInvalidInput},
		"trailing data": {`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]} x`, ErrSchema},
		"two documents": {`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]}` +
			`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]}`, ErrSchema},
		"modes not configured": {`{"schema":"` + Schema + `","unit":"µs","config":{"modes":"a,b"},` +
			`"runs":[{"modes":[{"name":"a","pauses_us":[1]},{"name":"c","pauses_us":[1]}]}]}`, ErrInvalidInput},
		"anatomy parts adding up to +Inf": {`{"schema":"` + Schema + `","unit":"µs","anatomy":{"parts":[` +
			`{"key":"a","label":"a"},{"key":"b","label":"b"},{"key":"c","label":"c"},{"key":"d","label":"d"},{"key":"e","label":"e"}]},` +
			`"runs":[{"modes":[{"name":"m","pauses_us":[1],"counter_means":{"a":4e307,"b":4e307,"c":4e307,"d":4e307,"e":4e307}}]}]}`, ErrInvalidInput},
		"modes out of order": {`{"schema":"` + Schema + `","unit":"µs","config":{"modes":"a,b"},` +
			`"runs":[{"modes":[{"name":"b","pauses_us":[1]},{"name":"a","pauses_us":[1]}]}]}`, ErrInvalidInput},
	}
	for name, tt := range tests {
		if _, err := ReadJSON(strings.NewReader(tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tt.want)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add(string(render(&testing.T{}, fixtureReport(f), JSON)))
	f.Add(`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1,2,3],"disturbed":[0]}]}]}`)
	// A subnormal base makes an improvement overflow to -Inf, which JSON cannot hold.
	f.Add(`{"schema":"` + Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1e-310,1e-310]},{"name":"b","pauses_us":[1e15,1e15]}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ReadJSON(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrSchema) && !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		// Whatever was accepted renders in every format and round-trips.
		for _, f := range []Format{Text, Markdown, CSV} {
			if err := r.Render(io.Discard, f); err != nil {
				t.Fatalf("Render(%v): %v", f, err)
			}
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON(&b); err != nil {
			t.Fatalf("re-reading an accepted report: %v", err)
		}
	})
}

func TestMergedRunsOfOneHostAreNumbered(t *testing.T) {
	later := fixtureReport(t)
	later.Runs[0].Started = later.Runs[0].Started.Add(time.Hour)
	m, err := Merge(fixtureReport(t), later)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.SplitN(string(render(t, m, CSV)), "\n", 2)[0]
	if !strings.Contains(head, "bench-a #1/serial") || !strings.Contains(head, "bench-a #2/batch") {
		t.Errorf("CSV header %q does not tell the runs apart", head)
	}
}

func TestMergeRequiresSameConfiguration(t *testing.T) {
	a, b := fixtureReport(t), fixtureReport(t)
	b.Config["gcs"] = "100"
	_, err := Merge(a, b)
	if !errors.Is(err, ErrConfigMismatch) || !strings.Contains(err.Error(), "gcs") {
		t.Errorf("Merge = %v, want ErrConfigMismatch naming gcs", err)
	}
	a.Source, b.Source = "a.json", "b.json"
	if _, err := Merge(a, b); err == nil || !strings.Contains(err.Error(), `b.json has gcs="100", a.json gcs=`) {
		t.Errorf("Merge of reports with sources = %v, want the files named", err)
	}
	a.Source = ""
	c := fixtureReport(t)
	c.Title = "something else"
	if _, err := Merge(a, c); !errors.Is(err, ErrConfigMismatch) {
		t.Errorf("Merge of different titles = %v", err)
	}
	if _, err := Merge(); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Merge() = %v", err)
	}
	d := fixtureReport(t)
	d.Runs[0].Host.Hostname = "bench-b"
	m, err := Merge(a, d)
	if err != nil || len(m.Runs) != 2 {
		t.Fatalf("Merge = %v, %v", m, err)
	}
	// One anatomy splits every host's pauses: a report with another, or
	// none, is another experiment, whichever comes first.
	e := fixtureReport(t)
	e.Runs[0].Host.Hostname = "bench-c"
	e.Anatomy = &Anatomy{Parts: []AnatomyRow{{Key: "x", Label: "x"}}}
	for _, pair := range [][2]*Report{{a, e}, {e, a}} {
		if _, err := Merge(pair[0], pair[1]); !errors.Is(err, ErrConfigMismatch) || !strings.Contains(err.Error(), "anatomy") {
			t.Errorf("Merge of different anatomies = %v, want ErrConfigMismatch naming the anatomy", err)
		}
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
	for _, ps := range [][]float64{{5, 5, 5}, {0.5, 0.5}, {0.001}, {1e-300, 1e-300}, {5e-324}, {5e-324, MaxPause}, {0, 0}, {0, MaxPause}} {
		run, err := NewRun(Host{}, []ModeInput{{Name: "a", Pauses: ps}, {Name: "b", Pauses: ps}})
		if err != nil {
			t.Fatal(err)
		}
		r := NewReport("edge", nil, run)
		for _, f := range PlotFormats {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("WritePlot(%v, %s) panicked: %v", ps, f, p)
					}
				}()
				if err := r.WritePlot(io.Discard, f); err != nil {
					t.Errorf("WritePlot(%v, %s) = %v", ps, f, err)
				}
			}()
		}
	}
}

// TestMarkdownEscapesFileText: a title or mode name read from a file may
// hold "|" or a line break; neither may split the Markdown table.
func TestMarkdownEscapesFileText(t *testing.T) {
	run, err := NewRun(Host{Hostname: "h|1"}, []ModeInput{{Name: "a|b", Pauses: []float64{1, 2}}, {Name: "c\nd", Pauses: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := NewReport("pause|s\nx", nil, run).WriteMarkdown(&b); err != nil {
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
	run, err := NewRun(Host{Hostname: "h\n1"}, []ModeInput{{Name: "a", Pauses: []float64{1, 2}}, {Name: "c\nd", Pauses: []float64{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReport("pause\nx", map[string]string{"k": "a\n\n# b"}, run)
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
	back, err := ReadJSON(bytes.NewReader(render(t, r, JSON)))
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
	for _, r := range []*Report{a, b} {
		r.Anatomy = &Anatomy{Parts: []AnatomyRow{{Key: "all", Label: "all of it"}}}
		for i := range r.Runs[0].Modes {
			m := &r.Runs[0].Modes[i]
			m.CounterMeans = map[string]float64{"all": m.Summary.Mean}
		}
	}
	b.Runs[0].Modes[0].CounterMeans["all"]++ // off by 1 µs
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	tab := m.AnatomyTable()
	if len(tab.Header) != 2 || !slices.Contains(tab.Header[0], "bench-b") || !slices.Contains(tab.Header[0], a.Runs[0].Host.Label()) {
		t.Errorf("header %q: want a line of hosts above the modes", tab.Header)
	}
	if notes := strings.Join(tab.Notes, "\n"); !strings.Contains(notes, "on bench-b add up to") {
		t.Errorf("notes %q: the warning should name bench-b", notes)
	}
}
