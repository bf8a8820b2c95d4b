package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/gcbench/gcbench/report"
)

// A Format is one of the report renderings.
type Format int

// The formats; Text is the zero value. Bench is a report's format only
// (see ParseReportFormat): a Table has no benchmark rendering.
const (
	Text Format = iota
	Markdown
	CSV
	JSON
	Bench
)

var formatNames = [...]string{Text: "text", Markdown: "markdown", CSV: "csv", JSON: "json", Bench: "bench"}

// tableFormats is how many of formatNames every Table renders (or, JSON,
// every command writes as its own document).
const tableFormats = int(Bench)

// String returns the format's name as ParseFormat accepts it.
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// FormatNames lists the names ParseFormat accepts, in order.
func FormatNames() []string { return formatNames[:tableFormats] }

// ReportFormatNames lists the names ParseReportFormat accepts, in order:
// FormatNames and then bench.
func ReportFormatNames() []string { return formatNames[:] }

// ParseFormat returns the format named s (case-insensitive) among
// FormatNames, or an error wrapping ErrInvalidInput that lists them.
func ParseFormat(s string) (Format, error) { return parseFormat(s, FormatNames()) }

// ParseReportFormat is ParseFormat for a Report's renderings, which
// include Bench (Go benchmark format, see WriteBench).
func ParseReportFormat(s string) (Format, error) { return parseFormat(s, ReportFormatNames()) }

func parseFormat(s string, names []string) (Format, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown format %q (want %s)", ErrInvalidInput, s, strings.Join(names, ", "))
}

// Render writes r in format f.
func Write(w io.Writer, r *report.Report, f Format) error {
	switch f {
	case Text:
		return WriteText(w, r)
	case Markdown:
		return WriteMarkdown(w, r)
	case CSV:
		return WriteCSV(w, r)
	case JSON:
		return r.WriteJSON(w)
	case Bench:
		return WriteBench(w, r)
	}
	return fmt.Errorf("%w: unknown format %v", ErrInvalidInput, f)
}
