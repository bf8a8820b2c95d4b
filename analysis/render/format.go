package render

import (
	"fmt"
	"io"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/internal/enum"
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

// formats names every Format: String, marshalling and ParseReportFormat.
var formats = enum.New[Format]("Format", "format", ErrInvalidInput, "text", "markdown", "csv", "json", "bench")

// tableFormats names the formats every Table renders (and, JSON, every
// command writes as its own document): all but Bench.
var tableFormats = enum.New[Format]("Format", "format", ErrInvalidInput, "text", "markdown", "csv", "json")

// String returns the format's name as ParseReportFormat accepts it, or
// "Format(n)" for a value without one.
func (f Format) String() string { return formats.String(f) }

// MarshalText returns the format's name; a value without one is an error.
func (f Format) MarshalText() ([]byte, error) { return formats.Marshal(f) }

// UnmarshalText sets f from a name ParseReportFormat accepts.
func (f *Format) UnmarshalText(b []byte) error { return formats.Unmarshal(b, f) }

// FormatNames lists the names ParseFormat accepts, in order.
func FormatNames() []string { return tableFormats.List() }

// ReportFormatNames lists the names ParseReportFormat accepts, in order:
// FormatNames and then bench.
func ReportFormatNames() []string { return formats.List() }

// ParseFormat returns the format named s (case-insensitive) among
// FormatNames, or an error wrapping ErrInvalidInput that lists them.
func ParseFormat(s string) (Format, error) { return tableFormats.Parse(s) }

// ParseReportFormat is ParseFormat for a Report's renderings, which
// include Bench (Go benchmark format, see WriteBench).
func ParseReportFormat(s string) (Format, error) { return formats.Parse(s) }

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
