package analysis

import (
	"fmt"
	"io"
	"strings"
)

// A Format is one of the report renderings.
type Format int

// The formats; Text is the zero value.
const (
	Text Format = iota
	Markdown
	CSV
	JSON
)

var formatNames = [...]string{Text: "text", Markdown: "markdown", CSV: "csv", JSON: "json"}

// String returns the format's name as ParseFormat accepts it.
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// FormatNames lists the names ParseFormat accepts, in order.
func FormatNames() []string { return formatNames[:] }

// ParseFormat returns the format named s (case-insensitive), or an error
// wrapping ErrInvalidInput that lists the valid names.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if strings.EqualFold(s, n) {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown format %q (want %s)", ErrInvalidInput, s, strings.Join(formatNames[:], ", "))
}

// Render writes r in format f.
func (r *Report) Render(w io.Writer, f Format) error {
	switch f {
	case Text:
		return r.WriteText(w)
	case Markdown:
		return r.WriteMarkdown(w)
	case CSV:
		return r.WriteCSV(w)
	case JSON:
		return r.WriteJSON(w)
	}
	return fmt.Errorf("%w: unknown format %v", ErrInvalidInput, f)
}
