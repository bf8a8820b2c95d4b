package render

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A Table is a titled grid of text cells with notes under it: every table
// gcbench prints, the pause report's as well as each benchmark protocol's,
// is one, and Write is the one renderer that draws them, so the formats
// agree and escape alike.
type Table struct {
	// Title is the first line (a heading in Markdown).
	Title string
	// Facts are "key: value" lines under the title: configuration, host.
	Facts []Fact
	// Lead are lines between the preamble and the grid: what a reader
	// needs before the numbers (a run's verdict). Text prints them as
	// lines, Markdown and HTML as bold paragraphs; CSV, rows only, omits
	// them.
	Lead []string
	// Header holds the heading lines. Text aligns each line as a row;
	// Markdown and CSV have one heading per column, a column's lines
	// joined by spaces.
	Header [][]string
	// Rows are the cells, a row per line. The first column is left
	// aligned in text, the others (numbers) right aligned.
	Rows [][]string
	// Notes are lines under the table (text and Markdown).
	Notes []string
}

// A Fact is one "key: value" line of a Table's preamble. Verbatim values
// (configurations, say) are set as code in Markdown. A Warning qualifies
// every row (PARTIAL, TRUNCATED): CSV, which has no preamble, carries it
// as a column of its own, its key in lower case, so that no reader of the
// rows misses it.
type Fact struct {
	Key, Value string
	Verbatim   bool
	Warning    bool
}

// Write renders t as Text, Markdown or CSV. CSV has the header and rows
// only, one record per row, and a column per Warning fact. JSON is not a
// table format: a caller writes its structured result instead.
func (t *Table) Write(w io.Writer, f Format) error {
	bw := bufio.NewWriter(w)
	switch f {
	case Text:
		t.writeText(bw)
	case Markdown:
		t.writeMarkdown(bw)
	case CSV:
		if err := t.writeCSV(bw); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: a table has no %v rendering", ErrInvalidInput, f)
	}
	return bw.Flush()
}

// WriteTables writes tables one after another in format f (Text,
// Markdown or CSV), a blank line between two: WriteTablesHTML's page as a
// stream, for the results that are tables alone. It stops at the first
// table that fails.
func WriteTables(w io.Writer, f Format, tables ...*Table) error {
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

func (t *Table) writeText(w *bufio.Writer) {
	if t.Title != "" {
		fmt.Fprintln(w, oneLine(t.Title))
	}
	for _, f := range t.Facts {
		fmt.Fprintf(w, "%s: %s\n", oneLine(f.Key), oneLine(f.Value))
	}
	if t.Title != "" || len(t.Facts) > 0 {
		fmt.Fprintln(w)
	}
	for _, l := range t.Lead {
		fmt.Fprintln(w, oneLine(l))
	}
	if len(t.Lead) > 0 {
		fmt.Fprintln(w)
	}
	var lines [][]string
	for _, line := range append(append([][]string{}, t.Header...), t.Rows...) {
		cells := make([]string, len(line))
		for i, c := range line {
			cells[i] = oneLine(c)
		}
		lines = append(lines, cells)
	}
	widths := columnWidths(lines)
	for _, line := range lines {
		var b strings.Builder
		for i, s := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(s)))
			if i == 0 {
				b.WriteString(s + pad)
			} else {
				b.WriteString("  " + pad + s)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range t.Notes {
		fmt.Fprintln(w, strings.TrimRight(oneLine(n), " "))
	}
}

func columnWidths(lines [][]string) []int {
	var widths []int
	for _, line := range lines {
		for i, s := range line {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(s)))
		}
	}
	return widths
}

func (t *Table) writeMarkdown(w *bufio.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", mdEscape(t.Title))
	}
	for _, f := range t.Facts {
		if f.Verbatim {
			fmt.Fprintf(w, "- %s: `%s`\n", mdEscape(f.Key), strings.ReplaceAll(oneLine(f.Value), "`", "'"))
		} else {
			fmt.Fprintf(w, "- %s: %s\n", mdEscape(f.Key), mdEscape(f.Value))
		}
	}
	if len(t.Facts) > 0 {
		fmt.Fprintln(w)
	}
	for _, l := range t.Lead {
		fmt.Fprintf(w, "**%s**\n\n", mdEscape(l))
	}
	head := t.columnHeadings()
	fmt.Fprintf(w, "| %s |\n|", strings.Join(escapeAll(head), " | "))
	for i := range head {
		if i == 0 {
			w.WriteString(" --- |")
		} else {
			w.WriteString(" ---: |")
		}
	}
	w.WriteString("\n")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(escapeAll(r), " | "))
	}
	if len(t.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range t.Notes {
		fmt.Fprintln(w, oneLine(n))
	}
}

// columnHeadings joins each column's heading lines into one heading.
func (t *Table) columnHeadings() []string {
	var head []string
	for _, line := range t.Header {
		for i, s := range line {
			if i == len(head) {
				head = append(head, "")
			}
			head[i] = strings.TrimSpace(head[i] + " " + s)
		}
	}
	return head
}

func escapeAll(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdEscape(c)
	}
	return out
}

// mdEscape keeps text (titles, names, hosts) inside its table cell or
// heading: a "|" would end the cell, a line break the row.
func mdEscape(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

// lineBreaks turns each line break into a space (see oneLine).
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// oneLine is s with its line breaks made spaces: a title, fact or cell
// read from a file may hold one, and in a text or Markdown table it would
// split its row or end its list item.
func oneLine(s string) string { return lineBreaks.Replace(s) }

func (t *Table) writeCSV(w io.Writer) error {
	var keys, values []string
	for _, f := range t.Facts {
		if f.Warning {
			keys, values = append(keys, strings.ToLower(f.Key)), append(values, f.Value)
		}
	}
	cw := csv.NewWriter(w)
	if len(t.Header) > 0 {
		_ = cw.Write(append(t.columnHeadings(), keys...))
	}
	rows := t.Rows
	if len(values) > 0 {
		rows = make([][]string, len(t.Rows))
		for i, r := range t.Rows {
			rows[i] = append(slices.Clip(r), values...)
		}
	}
	_ = cw.WriteAll(rows) // WriteAll flushes; Error reports any failure
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}
