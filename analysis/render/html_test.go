package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
)

// TestHTMLReportHoldsTheTextOutput: the HTML report has every row and
// note of the text tables, the configuration and host lines, one inline
// SVG figure per plot panel of the stated size with a title, and nothing
// it would load from elsewhere.
func TestHTMLReportHoldsTheTextOutput(t *testing.T) {
	r := anatomyReport(t)
	r.Runs[0].Partial = "interrupted after 3 of 10 collections per mode"
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	text := string(render(t, r, Text))
	for _, t0 := range []*Table{humanTable(r, false), AnatomyTable(r)} {
		for _, row := range t0.Rows {
			if !strings.Contains(page, `<th scope="row">`+htmlText(row[0])+`</th>`) {
				t.Errorf("no row %q", row[0])
			}
			for _, c := range row[1:] {
				if c != "" && !strings.Contains(page, "<td>"+htmlText(c)+"</td>") {
					t.Errorf("row %q: no cell %q", row[0], c)
				}
			}
		}
		for _, n := range t0.Notes {
			if !strings.Contains(page, htmlText(n)) {
				t.Errorf("no note %q", n)
			}
		}
	}
	for _, line := range strings.Split(text, "\n") { // config, host, PARTIAL
		if k, v, ok := strings.Cut(line, ": "); ok && (k == "config" || k == "host" || k == "PARTIAL") && !strings.Contains(page, htmlText(v)) {
			t.Errorf("no %s line %q", k, v)
		}
	}
	svgs := regexp.MustCompile(`<svg role="img" width="`+HTMLPlotWidth+`" height="`+HTMLPlotHeight+`"[^>]*>\n<title>[^<]+</title>`).FindAllString(page, -1)
	if len(svgs) != 4 { // histograms, box plots, CDFs, anatomy
		t.Errorf("%d plots of the stated size with a title, want 4", len(svgs))
	}
	if n := strings.Count(page, "<figcaption>"); n != 4 {
		t.Errorf("%d figure captions", n)
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "<?xml", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if strings.Count(page, "http") != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`)+strings.Count(page, `xmlns:xlink="http://www.w3.org/1999/xlink"`) {
		t.Error("the page names a URL beyond the SVG namespaces")
	}
}

// TestHTMLEscapesFileText: names read from a saved report cannot add
// markup to the page.
func TestHTMLEscapesFileText(t *testing.T) {
	r := fixtureReport(t)
	r.Runs[0].Modes[0].Name = `<script>alert(1)</script>`
	r.Config = append(r.Config, report.Pair{Key: "x", Value: `"><img src=x onerror=alert(1)>`})
	r.Title = "<b>pause</b>"
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "<b>"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the page holds %q from the file", bad)
		}
	}
}

// TestScalingHTMLLinksEachPoint: the sweep's page has the scaling table,
// its plots and each point's own report, which the point's row links to.
func TestScalingHTMLLinksEachPoint(t *testing.T) {
	reports := []*report.Report{point(t, "8", "targeted", 0.9), point(t, "2", "targeted", 1), point(t, "2", "broadcast", 0.8)}
	for i, r := range reports {
		r.Source = []string{"a.json", "b.json", "c d.json"}[i]
	}
	s, err := report.NewScaling(reports, "perjob", "batch", []report.ScalingCounter{{Key: "futex", Label: "futex calls"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteScalingHTML(&b, s, reports, func(src string) string { return "points/" + src }); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for i, p := range s.Points {
		id := []string{"point-1", "point-2", "point-3"}[i]
		if !strings.Contains(page, `<th scope="row"><a href="#`+id+`">`+p.Config.Value("wake")+`</a></th>`) {
			t.Errorf("row %d does not link to #%s", i+1, id)
		}
		if !strings.Contains(page, `<div id="`+id+`">`) {
			t.Errorf("no section %s", id)
		}
	}
	if !strings.Contains(page, `<a href="points/c%20d.json">`) {
		t.Error("no link to a point's file")
	}
	if n := strings.Count(page, `<svg role="img" width="`+HTMLPlotWidth+`" height="`+HTMLPlotHeight+`"`); n != 2 { // the ratio and the futex calls
		t.Errorf("%d plots, want 2", n)
	}
	if n := strings.Count(page, "<table>"); n != 1+3 {
		t.Errorf("%d tables, want the scaling table and a pause table per point", n)
	}
}

// htmlText is s as html/template escapes text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// TestTablesHTML: a page of tables alone has each as a semantic table
// under its own heading, and each table's facts once above them.
func TestTablesHTML(t *testing.T) {
	host := Fact{Key: "host", Value: "vm; 2 cores"}
	a := &Table{Title: "check", Facts: []Fact{host}, Header: [][]string{{"point", "error"}}, Rows: [][]string{{"w8", "12%"}}, Notes: []string{"a note"}}
	b := &Table{Title: "many cores", Facts: []Fact{host}, Header: [][]string{{"cores", "ratio"}}, Rows: [][]string{{"64", "0.3–0.5"}}}
	var out bytes.Buffer
	if err := WriteTablesHTML(&out, "gcbench predict", []Fact{{Key: "calibration", Value: "x"}}, a, b); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{`<section id="table-1">`, `<h2>check</h2>`, `<th scope="row">w8</th><td>12%</td>`, `<p class="note">a note</p>`,
		`<h2>many cores</h2>`, `<td>0.3–0.5</td>`, `<dt>calibration</dt>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<dt>host</dt>"); n != 1 {
		t.Errorf("the host is above the tables %d times, want once", n)
	}
}
