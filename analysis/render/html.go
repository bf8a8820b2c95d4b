package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/gcbench/gcbench/analysis/report"
)

// The HTML report: one self-contained file that a browser opens offline.
// It holds what the text output holds (the tables with their notes, the
// configuration and host lines) and the plots as inline SVG, one figure
// per panel; no script, no style sheet or font from elsewhere. Every table
// is a <table> with <th> headings (scope col or row), every plot an <svg>
// of a stated width and height (HTMLPlotWidth, HTMLPlotHeight) whose
// <title> (a browser's tooltip) and <figcaption> name it.

// HTMLPlotWidth and HTMLPlotHeight are the size of every plot of an HTML
// report, as its <svg> element states it (CSS points: 4/3 px each).
const (
	HTMLPlotWidth  = "576pt"
	HTMLPlotHeight = "240pt"
)

// htmlPage is what the template draws.
type htmlPage struct {
	Title    string
	Facts    []Fact
	Sections []htmlSection
}

// An htmlSection is a heading with tables, figures and collapsible
// sub-reports (a sweep's points).
type htmlSection struct {
	ID, Heading string
	Tables      []htmlTable
	Figures     []htmlFigure
	Details     []htmlDetail
}

type htmlTable struct {
	Lead    []string
	Caption string
	Header  [][][]string // heading lines of cells of words
	Rows    [][]htmlCell
	Notes   []string
}

type htmlCell struct {
	Text, Href string
}

type htmlFigure struct {
	ID, Caption string
	SVG         template.HTML
}

// An htmlDetail is one sweep point's own report, folded. Its ID is on
// the folded content, not on <details>: a browser that follows a link to
// an element inside a closed <details> opens it.
type htmlDetail struct {
	ID, Summary string
	Facts       []Fact
	Source      string // the point's file, if the caller gave a link
	Tables      []htmlTable
}

var htmlTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gcbench">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 80em; padding: 0 1em; color: #111; }
h1 { font-size: 1.5em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
.warning { color: #a00; font-weight: bold; }
table { border-collapse: collapse; margin: 1em 0; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; }
thead th { text-align: right; vertical-align: bottom; border-bottom: 2px solid #999; }
div.table { overflow-x: auto; }
span.nw { white-space: nowrap; }
thead th:first-child, tbody th { text-align: left; }
td { text-align: right; white-space: nowrap; }
tbody tr:hover { background: #f3f6fa; }
p.note { font-size: 0.9em; color: #333; margin: 0.3em 0; }
figure { margin: 1.5em 0; }
figure svg { display: block; background: #fff; }
figcaption { font-size: 0.9em; color: #333; }
details { margin: 0.5em 0; border: 1px solid #ddd; padding: 0.3em 0.8em; }
details:has(:target) { border-color: #36c; }
summary { cursor: pointer; }
code { font-size: 0.95em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{template "facts" .Facts}}
{{- range .Sections}}
<section id="{{.ID}}">
<h2>{{.Heading}}</h2>
{{- range .Tables}}{{template "table" .}}{{end}}
{{- range .Figures}}
<figure id="{{.ID}}">
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
{{- range .Details}}
<details>
<summary>{{.Summary}}</summary>
<div id="{{.ID}}">
{{- template "facts" .Facts}}
{{- if .Source}}<p class="note">Saved point: <a href="{{.Source}}">{{.Source}}</a></p>{{end}}
{{- range .Tables}}{{template "table" .}}{{end}}
</div>
</details>
{{- end}}
</section>
{{- end}}
<footer><p class="note">Written by gcbench. This file is self-contained: no scripts, no fonts, nothing from the network.</p></footer>
</body>
</html>
{{define "facts"}}{{if .}}
<dl class="facts">
{{- range .}}
<dt{{if .Warning}} class="warning"{{end}}>{{.Key}}</dt><dd{{if .Warning}} class="warning"{{end}}>{{if .Verbatim}}<code>{{.Value}}</code>{{else}}{{.Value}}{{end}}</dd>
{{- end}}
</dl>
{{- end}}{{end}}
{{define "table"}}
{{- range .Lead}}
<p class="lead"><strong>{{.}}</strong></p>
{{- end}}
<div class="table">
<table>
<caption>{{.Caption}}</caption>
<thead>
{{- range .Header}}
<tr>{{range .}}<th scope="col">{{range $j, $w := .}}{{if $j}} {{end}}<span class="nw">{{$w}}</span>{{end}}</th>{{end}}</tr>
{{- end}}
</thead>
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}{{if eq $i 0}}<th scope="row">{{if $c.Href}}<a href="{{$c.Href}}">{{$c.Text}}</a>{{else}}{{$c.Text}}{{end}}</th>{{else}}<td>{{$c.Text}}</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{end}}`))

// htmlTableOf is t as the template draws it; caption, if not empty,
// replaces t's title.
func htmlTableOf(t *Table, caption string) htmlTable {
	if caption == "" {
		caption = t.Title
	}
	out := htmlTable{Lead: t.Lead, Caption: caption, Notes: t.Notes}
	width := 0
	for _, line := range t.Header {
		width = max(width, len(line))
	}
	for _, row := range t.Rows {
		width = max(width, len(row))
	}
	for _, line := range t.Header { // every heading line as wide as the table
		cells := make([][]string, width)
		for i, c := range line {
			// A heading wraps between words only: "bench-a" is one name.
			cells[i] = strings.Fields(c)
		}
		out.Header = append(out.Header, cells)
	}
	for _, row := range t.Rows {
		cells := make([]htmlCell, width)
		for i, c := range row {
			cells[i].Text = c
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// htmlFigures draws each panel as an inline SVG figure, captioned with its
// title and axes.
func htmlFigures(idPrefix string, panels []*plot.Plot) ([]htmlFigure, error) {
	figs := make([]htmlFigure, 0, len(panels))
	for i, p := range panels {
		caption := p.Title.Text
		var axes []string
		if p.X.Label.Text != "" {
			axes = append(axes, "x: "+p.X.Label.Text)
		}
		if p.Y.Label.Text != "" {
			axes = append(axes, "y: "+p.Y.Label.Text)
		}
		if len(axes) > 0 {
			caption += " (" + strings.Join(axes, "; ") + ")"
		}
		var b bytes.Buffer
		if err := writePanels(&b, "svg", p); err != nil {
			return nil, err
		}
		svg, err := inlineSVG(b.String(), caption)
		if err != nil {
			return nil, err
		}
		figs = append(figs, htmlFigure{ID: fmt.Sprintf("%s-%d", idPrefix, i+1), Caption: caption, SVG: svg})
	}
	return figs, nil
}

// inlineSVG makes a standalone SVG document an element for HTML: the XML
// declaration and comment before <svg> go, and a <title> (the tooltip a
// browser shows, and what a screen reader says) comes first inside it.
// The SVG is gonum's, whose text is escaped; title is escaped here.
func inlineSVG(doc, title string) (template.HTML, error) {
	start := strings.Index(doc, "<svg")
	if start < 0 {
		return "", fmt.Errorf("render: the plot's SVG has no <svg> element")
	}
	doc = doc[start:]
	end := strings.Index(doc, ">")
	if end < 0 {
		return "", fmt.Errorf("render: the plot's SVG has no <svg> element")
	}
	var b strings.Builder
	b.WriteString(`<svg role="img"`)
	b.WriteString(doc[len("<svg"):end])
	b.WriteString(">\n<title>")
	template.HTMLEscape(&b, []byte(title))
	b.WriteString("</title>")
	b.WriteString(doc[end+1:])
	return template.HTML(b.String()), nil // gonum escapes its text, HTMLEscape the title
}

// htmlFacts are the preamble of a report: configuration, hosts, partial
// runs, when each run started and its run-wide facts.
func htmlFacts(r *report.Report) []Fact {
	facts := []Fact{{Key: "config", Value: r.Config.String(), Verbatim: true}}
	for _, run := range r.Runs {
		facts = append(facts, Fact{Key: "host", Value: describeHost(run)})
		if !run.Started.IsZero() {
			facts = append(facts, Fact{Key: "started", Value: run.Started.UTC().Format(time.RFC3339)})
		}
		if run.Partial != "" {
			facts = append(facts, Fact{Key: "PARTIAL", Value: run.Partial, Warning: true})
		}
		if len(run.Facts) > 0 {
			var pairs []string
			for _, k := range slices.Sorted(maps.Keys(run.Facts)) {
				pairs = append(pairs, fmt.Sprintf("%s=%.6g", k, run.Facts[k])) // 6 digits: 1.570232, not 1.5702320680000001
			}
			facts = append(facts, Fact{Key: "run facts", Value: strings.Join(pairs, " "), Verbatim: true})
		}
	}
	return facts
}

// htmlTables are the report's tables as the text output prints them: the
// pause table, then the anatomy if there is one.
func htmlTables(r *report.Report) []htmlTable {
	t := humanTable(r, len(r.Runs) > 1)
	tables := []htmlTable{htmlTableOf(t, r.Title+": statistics per mode (µs)")}
	if a := AnatomyTable(r); a != nil {
		tables = append(tables, htmlTableOf(a, ""))
	}
	return tables
}

// WriteHTML writes r as one self-contained HTML document: its
// configuration and hosts, the pause table and the anatomy table with
// their notes (as WriteText prints them), and WritePlot's panels, each an
// inline SVG figure of HTMLPlotWidth × HTMLPlotHeight with a title and
// axis labels. It loads nothing: no script, style sheet or font.
func WriteHTML(w io.Writer, r *report.Report) error {
	panels, err := plotPanels(r)
	if err != nil {
		return err
	}
	figs, err := htmlFigures("plot", panels)
	if err != nil {
		return err
	}
	tables := htmlTables(r)
	page := htmlPage{
		Title: "gcbench: " + r.Title,
		Facts: htmlFacts(r),
		Sections: []htmlSection{
			{ID: "pauses", Heading: "Pauses", Tables: tables[:1]},
		},
	}
	if len(tables) > 1 {
		page.Sections = append(page.Sections, htmlSection{ID: "anatomy", Heading: "Pause anatomy", Tables: tables[1:]})
	}
	page.Sections = append(page.Sections, htmlSection{ID: "plots", Heading: "Plots", Figures: figs})
	return writeHTMLPage(w, page)
}

// WriteHTML writes the scaling table as one self-contained HTML document,
// as Report.WriteHTML does a run: the configuration the points share, the
// scaling table with its notes, WritePlot's panels as figures, and then
// each point's own report (its host, pause table and anatomy), folded,
// which the table's row links to. points are the reports s was built
// from; href, if not nil, gives a link to a point's file from its Source
// (return "" for none).
func WriteScalingHTML(w io.Writer, s *report.Scaling, points []*report.Report, href func(source string) string) error {
	panels, err := scalingPanels(s)
	if err != nil {
		return err
	}
	figs, err := htmlFigures("plot", panels)
	if err != nil {
		return err
	}
	t := ScalingTable(s)
	table := htmlTableOf(t, fmt.Sprintf("%s/%s per point", s.New, s.Base))
	// Each point's own report, found by its configuration and host.
	type found struct {
		r   *report.Report
		run *report.Run
	}
	byID := map[string]found{}
	for _, r := range points {
		for i := range r.Runs {
			byID[pointID(r.Config, r.Runs[i].Host.Label())] = found{r, &r.Runs[i]}
		}
	}
	var details []htmlDetail
	for i, p := range s.Points {
		f, ok := byID[pointID(p.Config, p.Host)]
		if !ok {
			continue
		}
		id := fmt.Sprintf("point-%d", i+1)
		table.Rows[i][0].Href = "#" + id
		var name []string
		for _, k := range s.Keys {
			name = append(name, k+"="+p.Value(k))
		}
		one := &report.Report{Schema: report.Schema, Title: f.r.Title, Unit: report.Unit, Config: f.r.Config, Settings: f.r.Settings,
			Runs: []report.Run{*f.run}, Anatomy: f.r.Anatomy}
		d := htmlDetail{ID: id, Summary: strings.Join(name, " ") + " on " + p.Host, Facts: htmlFacts(one), Tables: htmlTables(one)}
		if href != nil && f.r.Source != "" {
			d.Source = href(f.r.Source)
		}
		details = append(details, d)
	}
	var facts []Fact
	if fixed := fixedConfig(s); len(fixed) > 0 {
		facts = append(facts, Fact{Key: "config", Value: strings.Join(fixed, " "), Verbatim: true})
	}
	facts = append(facts, Fact{Key: "hosts", Value: strings.Join(s.Hosts(), ", ")})
	page := htmlPage{
		Title: t.Title,
		Facts: facts,
		Sections: []htmlSection{
			{ID: "scaling", Heading: "Scaling", Tables: []htmlTable{table}},
			{ID: "plots", Heading: "Plots", Figures: figs},
		},
	}
	if len(details) > 0 {
		page.Sections = append(page.Sections, htmlSection{ID: "points", Heading: "Points", Details: details})
	}
	return writeHTMLPage(w, page)
}

// pointID identifies a sweep point: its configuration and host.
func pointID(config report.Config, host string) string {
	return host + "\x00" + config.Sorted().String()
}

func writeHTMLPage(w io.Writer, page htmlPage) error {
	var b bytes.Buffer // the template fails half-way on a bad value: write whole pages only
	if err := htmlTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("render: HTML report: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("render: writing HTML report: %w", err)
	}
	return nil
}

// WriteTablesHTML writes tables as one self-contained HTML document, as
// WriteHTML does a report's: title as its heading, facts ("key: value"
// lines such as the host) above, then each table with its title as caption
// and its notes under it, in a section of its own. It is for the results
// that are tables alone (gcbench predict's).
func WriteTablesHTML(w io.Writer, title string, facts []Fact, tables ...*Table) error {
	page := htmlPage{Title: title, Facts: facts}
	for i, t := range tables {
		heading := t.Title
		if heading == "" {
			heading = fmt.Sprintf("Table %d", i+1)
		}
		tab := htmlTableOf(t, heading)
		for _, f := range t.Facts { // a table's own preamble (its host, say) above, once
			if !slices.Contains(page.Facts, f) {
				page.Facts = append(page.Facts, f)
			}
		}
		page.Sections = append(page.Sections, htmlSection{ID: fmt.Sprintf("table-%d", i+1), Heading: heading, Tables: []htmlTable{tab}})
	}
	return writeHTMLPage(w, page)
}
