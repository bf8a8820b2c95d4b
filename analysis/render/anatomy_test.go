package render

import (
	"bytes"
	"encoding/csv"
	"errors"
	"image/png"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
)

var testAnatomy = &report.Anatomy{
	Parts:    []report.AnatomyRow{{Key: "prep", Label: "card preparation"}, {Key: "dispatch", Label: "dispatch"}, {Key: "span", Label: "job span"}, {Key: "join", Label: "join latency"}},
	Counters: []report.AnatomyRow{{Key: "futex", Label: "futex calls"}},
}

// anatomyInput draws n collections whose parts add up to each pause, the
// dispatch part scaled by slow.
func anatomyInput(name string, n int, slow float64, seed uint64) report.ModeInput {
	rng := rand.New(rand.NewPCG(seed, 1))
	in := report.ModeInput{Name: name, Counters: map[string][]float64{}}
	for range n {
		parts := map[string]float64{"prep": 50 + rng.Float64()*10, "dispatch": slow * (20 + rng.Float64()*20),
			"span": 500 + rng.Float64()*100, "join": 5 + rng.Float64()}
		pause := 0.0
		for _, p := range testAnatomy.Parts {
			in.Counters[p.Key] = append(in.Counters[p.Key], parts[p.Key])
			pause += parts[p.Key]
		}
		in.Pauses = append(in.Pauses, pause)
		in.Counters["futex"] = append(in.Counters["futex"], 10*slow)
	}
	return in
}

func anatomyReport(t *testing.T) *report.Report {
	run, err := report.NewRun(report.Host{Hostname: "vm"}, []report.ModeInput{anatomyInput("perjob", 200, 4, 1), anatomyInput("batch", 200, 1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewReport("minor-collection pause", report.Config{{Key: "workers", Value: "8"}}, run)
	r.Anatomy = testAnatomy
	return r
}

// cells finds the row labelled label in a text table and returns its
// numeric cells.
func cells(t *testing.T, text, label string) []float64 {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, label+" "); ok {
			var out []float64
			for _, f := range strings.Fields(rest) {
				v, err := strconv.ParseFloat(strings.TrimSuffix(f, "%"), 64)
				if err != nil {
					t.Fatalf("row %q: cell %q: %v", label, f, err)
				}
				out = append(out, v)
			}
			return out
		}
	}
	t.Fatalf("no row %q in:\n%s", label, text)
	return nil
}

func TestAnatomyAddsUpAndAttributesTheDifference(t *testing.T) {
	r := anatomyReport(t)
	text := string(render(t, r, Text))
	sum, avg := cells(t, text, "sum of the parts"), cells(t, text, "mean pause (Avg)")
	if sum[0] != avg[0] || sum[1] != avg[1] {
		t.Errorf("the parts add up to %v, the mean pauses are %v", sum, avg)
	}
	if strings.Contains(text, "WARNING") {
		t.Errorf("parts that add up were flagged:\n%s", text)
	}
	// Columns: perjob, batch, perjob − batch, share (blank within noise).
	var diff float64
	for _, p := range testAnatomy.Parts {
		c := cells(t, text, p.Label)
		diff += c[2]
		if p.Key != "dispatch" && len(c) > 3 {
			t.Errorf("%s differs by noise alone, yet shows a share: %v", p.Label, c)
		}
	}
	if total := avg[0] - avg[1]; diff < total-0.5 || diff > total+0.5 {
		t.Errorf("the parts' differences add up to %.1f, the pauses differ by %.1f", diff, total)
	}
	if d := cells(t, text, "dispatch"); len(d) < 4 || d[3] < 90 || d[3] > 102 {
		t.Errorf("the slow dispatch should carry the difference: %v", d)
	}
	if futex := cells(t, text, "futex calls"); futex[0] != 40 || futex[1] != 10 {
		t.Errorf("futex calls %v", futex)
	}
}

// TestAnatomyShowsNoShareOfANoiseDifference: two modes alike but for
// their random draws differ by noise, and a share of it (597% of a 28 µs
// difference, once) would read as a finding: no row shows one.
func TestAnatomyShowsNoShareOfANoiseDifference(t *testing.T) {
	run, err := report.NewRun(report.Host{Hostname: "vm"}, []report.ModeInput{anatomyInput("perjob", 200, 1, 1), anatomyInput("batch", 200, 1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewReport("minor-collection pause", report.Config{{Key: "workers", Value: "8"}}, run)
	r.Anatomy = testAnatomy
	text := string(render(t, r, Text))
	for _, label := range []string{"card preparation", "dispatch", "job span", "join latency", "sum of the parts", "mean pause (Avg)"} {
		if c := cells(t, text, label); len(c) != 3 {
			t.Errorf("%s: a share of a difference within noise: %v", label, c)
		}
	}
	if !strings.Contains(text, shareNote) {
		t.Errorf("the blank shares are not explained:\n%s", text)
	}
}

func TestAnatomyFlagsPartsThatDoNotAddUp(t *testing.T) {
	r := anatomyReport(t)
	r.Runs[0].Modes[0].CounterMeans["join"] += 3
	if text := string(render(t, r, Text)); !strings.Contains(text, "WARNING: perjob's parts add up to") {
		t.Errorf("no warning:\n%s", text)
	}
}

func TestAnatomyInEveryFormat(t *testing.T) {
	r := anatomyReport(t)
	if md := string(render(t, r, Markdown)); !strings.Contains(md, "| job span |") {
		t.Errorf("Markdown lacks the anatomy:\n%s", md)
	}
	// CSV: one table per file, the anatomy in its own with its own header.
	recs, err := csv.NewReader(bytes.NewReader(render(t, r, CSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if last := recs[len(recs)-1]; last[0] != "host-GC disturbed" {
		t.Errorf("the pause table's CSV ends in %q: the anatomy is a table of its own", last)
	}
	var ab bytes.Buffer
	if err := WriteAnatomyCSV(&ab, r); err != nil {
		t.Fatal(err)
	}
	arecs, err := csv.NewReader(&ab).ReadAll() // default FieldsPerRecord: every record as wide as the header
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"row", "kind", "perjob", "batch", "batch vs perjob difference", "config", "host"}; !slices.Equal(arecs[0], want) {
		t.Errorf("anatomy CSV header %q, want %q", arecs[0], want)
	}
	if last := arecs[len(arecs)-1]; last[0] != "futex calls" || last[1] != "counter (mean per collection)" || last[4] != "30.000" {
		t.Errorf("anatomy CSV's last record %q", last)
	}
	if len(arecs) != 1+len(testAnatomy.Parts)+len(testAnatomy.Counters) {
		t.Errorf("anatomy CSV has %d records", len(arecs))
	}
	delete(r.Runs[0].Modes[1].CounterMeans, "futex") // batch's run did not count it
	ab.Reset()
	if err := WriteAnatomyCSV(&ab, r); err != nil {
		t.Fatal(err)
	}
	if last := readAll(t, ab.String()); !slices.Equal(last[len(last)-1][2:5], []string{"40.000", "", ""}) {
		t.Errorf("a counter one mode lacks: %q, want it and its difference empty", last[len(last)-1])
	}
	if err := WriteAnatomyCSV(&ab, fixtureReport(t)); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("WriteAnatomyCSV of a report without one = %v", err)
	}
	back, err := report.ReadJSON(bytes.NewReader(render(t, r, JSON)))
	if err != nil || back.Anatomy == nil || len(back.Anatomy.Parts) != 4 {
		t.Fatalf("JSON lost the anatomy: %v %+v", err, back)
	}
	var pic bytes.Buffer
	if err := WritePlot(&pic, r, "png"); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&pic); err != nil {
		t.Error(err)
	}
	if fixture := string(render(t, fixtureReport(t), Text)); strings.Contains(fixture, "anatomy") {
		t.Error("a report without an anatomy printed one")
	}
}

func readAll(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestAnatomyShowsAnUncountedCounterAsNA: a counter one mode's run did
// not count (absent from its CounterMeans, as gcsim leaves the kernel's
// observables off the Native backend) is n/a in the text, Markdown and
// HTML anatomy, its difference too, never 0; the JSON keeps it absent
// and the anatomy CSV leaves its cell empty.
func TestAnatomyShowsAnUncountedCounterAsNA(t *testing.T) {
	r := anatomyReport(t)
	r.Anatomy = &report.Anatomy{Parts: testAnatomy.Parts, Counters: []report.AnatomyRow{{Key: "wakeups_elsewhere", Label: "wake-ups on another CPU"}}}
	for i := range r.Runs[0].Modes {
		r.Runs[0].Modes[i].CounterMeans["wakeups_elsewhere"] = 3
	}
	delete(r.Runs[0].Modes[1].CounterMeans, "wakeups_elsewhere") // batch's run did not count it
	for _, f := range []Format{Text, Markdown} {
		var row string
		for _, line := range strings.Split(string(render(t, r, f)), "\n") {
			if strings.Contains(line, "wake-ups on another CPU") {
				row = line
			}
		}
		if got := strings.Fields(strings.NewReplacer("|", " ").Replace(row)); !slices.Equal(got[len(got)-3:], []string{"3.0", "n/a", "n/a"}) {
			t.Errorf("%v: row %q, want perjob 3.0, batch n/a, difference n/a", f, row)
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	_, row, _ := strings.Cut(h.String(), "wake-ups on another CPU")
	if row, _, _ = strings.Cut(row, "</tr>"); strings.Count(row, "n/a") != 2 {
		t.Errorf("the HTML anatomy's row %q: want batch and the difference n/a", row)
	}
	back, err := report.ReadJSON(bytes.NewReader(render(t, r, JSON)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := back.Runs[0].Modes[1].CounterMeans["wakeups_elsewhere"]; ok {
		t.Error("the JSON report gave batch a value it did not count")
	}
	if v := back.Runs[0].Modes[0].CounterMeans["wakeups_elsewhere"]; v != 3 {
		t.Errorf("the JSON report's perjob wakeups_elsewhere = %v, want 3", v)
	}
	var ab bytes.Buffer
	if err := WriteAnatomyCSV(&ab, r); err != nil {
		t.Fatal(err)
	}
	if last := readAll(t, ab.String()); !slices.Equal(last[len(last)-1][2:5], []string{"3.000", "", ""}) {
		t.Errorf("anatomy CSV: %q, want batch and the difference empty", last[len(last)-1])
	}
}
