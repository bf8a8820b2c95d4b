package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/report/reporttest"
)

func TestReadJSONRecomputesDerivedValues(t *testing.T) {
	var buf bytes.Buffer
	if err := reporttest.Report(t).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	mode0 := raw["runs"].([]any)[0].(map[string]any)["modes"].([]any)[0].(map[string]any)
	mode0["summary"].(map[string]any)["mean"] = 1.0
	mode0["disturbed_count"] = 42.0
	edited, _ := json.Marshal(raw)
	back, err := report.ReadJSON(bytes.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	m := back.Runs[0].Modes[0]
	if m.Summary.Mean == 1 || m.DisturbedCount != 2 {
		t.Errorf("ReadJSON kept edited derived values: mean %v, disturbed %d", m.Summary.Mean, m.DisturbedCount)
	}
}

func TestMergeRejectsARunTwice(t *testing.T) {
	if _, err := report.Merge(reporttest.Report(t), reporttest.Report(t)); !errors.Is(err, report.ErrDuplicateRun) {
		t.Errorf("merging a report with itself: err = %v, want ErrDuplicateRun", err)
	}
	other := reporttest.Report(t)
	other.Runs[0].Modes[0].Pauses[0]++
	if _, err := report.Merge(reporttest.Report(t), other); err != nil {
		t.Errorf("runs whose samples differ are not duplicates: %v", err)
	}
}

func TestReadJSONRejects(t *testing.T) {
	tests := map[string]struct {
		in   string
		want error
	}{
		"garbage":         {"not json", report.ErrSchema},
		"empty":           {"", report.ErrSchema},
		"wrong kind":      {`{"schema":"other/v9","runs":[]}`, report.ErrSchema},
		"a scaling table": {`{"schema":"` + report.ScalingSchema + `","base":"perjob","new":"batch","points":[]}`, report.ErrSchema},
		"wrong unit":      {`{"schema":"` + report.Schema + `","unit":"ms","runs":[]}`, report.ErrSchema},
		"no runs":         {`{"schema":"` + report.Schema + `","unit":"µs","runs":[]}`, report.ErrInvalidInput},
		"no modes":        {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[]}]}`, report.ErrInvalidInput},
		"empty mode":      {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[]}]}]}`, report.ErrInvalidInput},
		"bad index":       {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1],"disturbed":[1]}]}]}`, report.ErrInvalidInput},
		"bad elapsed": {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"elapsed":"soon","modes":[{"name":"a","pauses_us":[1]}]}]}`,
			report.ErrSchema},
		"absurd cores": {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"host":{"cores":2000000000},"modes":[{"name":"a","pauses_us":[1]}]}]}`,
			report.ErrInvalidInput},
		"negative GOMAXPROCS": {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"host":{"gomaxprocs":-1},"modes":[{"name":"a","pauses_us":[1]}]}]}`,
			report.ErrInvalidInput},
		"trailing data": {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]} x`, report.ErrSchema},
		"two documents": {`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]}` +
			`{"schema":"` + report.Schema + `","unit":"µs","runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]}`, report.ErrSchema},
		"modes not configured": {`{"schema":"` + report.Schema + `","unit":"µs","config":{"modes":"a,b"},` +
			`"runs":[{"modes":[{"name":"a","pauses_us":[1]},{"name":"c","pauses_us":[1]}]}]}`, report.ErrInvalidInput},
		"anatomy parts adding up to +Inf": {`{"schema":"` + report.Schema + `","unit":"µs","anatomy":{"parts":[` +
			`{"key":"a","label":"a"},{"key":"b","label":"b"},{"key":"c","label":"c"},{"key":"d","label":"d"},{"key":"e","label":"e"}]},` +
			`"runs":[{"modes":[{"name":"m","pauses_us":[1],"counter_means":{"a":4e307,"b":4e307,"c":4e307,"d":4e307,"e":4e307}}]}]}`, report.ErrInvalidInput},
		"modes out of order": {`{"schema":"` + report.Schema + `","unit":"µs","config":{"modes":"a,b"},` +
			`"runs":[{"modes":[{"name":"b","pauses_us":[1]},{"name":"a","pauses_us":[1]}]}]}`, report.ErrInvalidInput},
	}
	for name, tt := range tests {
		if _, err := report.ReadJSON(strings.NewReader(tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tt.want)
		}
	}
}

func TestMergeRequiresSameConfiguration(t *testing.T) {
	a, b := reporttest.Report(t), reporttest.Report(t)
	b.Config[0] = report.Pair{Key: "gcs", Value: "100"}
	_, err := report.Merge(a, b)
	if !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "gcs") {
		t.Errorf("Merge = %v, want ErrConfigMismatch naming gcs", err)
	}
	a.Source, b.Source = "a.json", "b.json"
	if _, err := report.Merge(a, b); err == nil || !strings.Contains(err.Error(), `b.json has gcs="100", a.json gcs=`) {
		t.Errorf("Merge of reports with sources = %v, want the files named", err)
	}
	a.Source = ""
	c := reporttest.Report(t)
	c.Title = "something else"
	if _, err := report.Merge(a, c); !errors.Is(err, report.ErrConfigMismatch) {
		t.Errorf("Merge of different titles = %v", err)
	}
	if _, err := report.Merge(); !errors.Is(err, report.ErrInvalidInput) {
		t.Errorf("Merge() = %v", err)
	}
	d := reporttest.Report(t)
	d.Runs[0].Host.Hostname = "bench-b"
	m, err := report.Merge(a, d)
	if err != nil || len(m.Runs) != 2 {
		t.Fatalf("Merge = %v, %v", m, err)
	}
	// One anatomy splits every host's pauses: a report with another, or
	// none, is another experiment, whichever comes first.
	e := reporttest.Report(t)
	e.Runs[0].Host.Hostname = "bench-c"
	e.Anatomy = &report.Anatomy{Parts: []report.AnatomyRow{{Key: "x", Label: "x"}}}
	for _, pair := range [][2]*report.Report{{a, e}, {e, a}} {
		if _, err := report.Merge(pair[0], pair[1]); !errors.Is(err, report.ErrConfigMismatch) || !strings.Contains(err.Error(), "anatomy") {
			t.Errorf("Merge of different anatomies = %v, want ErrConfigMismatch naming the anatomy", err)
		}
	}
}

// TestSettingsTravelAndV1StillReads: a report's typed settings survive
// WriteJSON and ReadJSON as they were; a SchemaV1 report (before settings)
// still reads; reports whose settings differ do not merge.
func TestSettingsTravelAndV1StillReads(t *testing.T) {
	r := reporttest.Report(t)
	r.Settings = json.RawMessage(`{"workers":2,"gcs":200}`)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]int
	if err := json.Unmarshal(back.Settings, &got); err != nil || got["workers"] != 2 || got["gcs"] != 200 || back.Schema != report.Schema {
		t.Errorf("settings read back as %s (%v), schema %q", back.Settings, err, back.Schema)
	}

	v1 := strings.Replace(buf.String(), report.Schema, report.SchemaV1, 1)
	old, err := report.ReadJSON(strings.NewReader(v1))
	if err != nil {
		t.Fatalf("a %s report: %v", report.SchemaV1, err)
	}
	if old.Schema != report.SchemaV1 {
		t.Errorf("schema read as %q", old.Schema)
	}

	other := reporttest.Report(t)
	other.Runs[0].Host.Hostname = "elsewhere"
	other.Settings = json.RawMessage(`{"workers":3,"gcs":200}`)
	if _, err := report.Merge(back, other); !errors.Is(err, report.ErrConfigMismatch) {
		t.Errorf("merging other settings: err = %v, want ErrConfigMismatch", err)
	}
}

// TestConfigKeepsItsOrder: a report's configuration reads back in the
// order it was written; reports of either schema written before the order
// mattered have their keys sorted, so they show as they did; the same
// pairs in another order are the same configuration; and a key given
// twice or a value that is not text is refused.
func TestConfigKeepsItsOrder(t *testing.T) {
	doc := func(schema, config string) string {
		return `{"schema":"` + schema + `","unit":"µs","config":` + config + `,"runs":[{"modes":[{"name":"a","pauses_us":[1]}]}]}`
	}
	sorted := `{"gcs":"200","major_heap":"2.5GiB","workers":"2"}`
	ordered := `{"major_heap":"2.5GiB","workers":"2","gcs":"200"}`
	for _, tt := range []struct{ name, in, want string }{
		{"version 1", doc(report.SchemaV1, sorted), "gcs=200 major_heap=2.5GiB workers=2"},
		{"version 2 as written before the order mattered", doc(report.Schema, sorted), "gcs=200 major_heap=2.5GiB workers=2"},
		{"version 2 in its owner's order", doc(report.Schema, ordered), "major_heap=2.5GiB workers=2 gcs=200"},
		{"no configuration", doc(report.Schema, "null"), ""},
	} {
		r, err := report.ReadJSON(strings.NewReader(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := r.Config.String(); got != tt.want {
			t.Errorf("%s: config %q, want %q", tt.name, got, tt.want)
		}
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if back, err := report.ReadJSON(&buf); err != nil || back.Config.String() != tt.want {
			t.Errorf("%s: written and read again: %q, %v", tt.name, back.Config, err)
		}
	}

	old, _ := report.ReadJSON(strings.NewReader(doc(report.Schema, sorted)))
	now, _ := report.ReadJSON(strings.NewReader(doc(report.Schema, ordered)))
	now.Runs[0].Host.Hostname = "elsewhere"
	if m, err := report.Merge(now, old); err != nil || m.Config.String() != now.Config.String() {
		t.Errorf("merging the same pairs in two orders: %v, %v (want the first's order)", m, err)
	}

	for name, config := range map[string]string{
		"a key twice":      `{"gcs":"200","gcs":"300"}`,
		"a number":         `{"gcs":200}`,
		"not an object":    `["gcs","200"]`,
		"a nested object":  `{"mutator":{"lifetime":"8"}}`,
		"a string, alone":  `"gcs=200"`,
		"a truncated pair": `{"gcs"}`,
	} {
		if _, err := report.ReadJSON(strings.NewReader(doc(report.Schema, config))); !errors.Is(err, report.ErrSchema) {
			t.Errorf("%s: err = %v, want ErrSchema", name, err)
		}
	}
}
