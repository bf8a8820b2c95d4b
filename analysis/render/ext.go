package render

import (
	"path/filepath"
	"slices"
	"strings"
)

// Ext is the file extension a file of format f usually has (".txt",
// ".md", ".csv", ".json"; ".txt" for Bench, which benchstat reads as
// text), or "" for a value that is not a Format.
func (f Format) Ext() string {
	switch f {
	case Text, Bench:
		return ".txt"
	case Markdown:
		return ".md"
	case CSV:
		return ".csv"
	case JSON:
		return ".json"
	}
	return ""
}

// FormatOfFile is the format a file name's extension asks for, Ext's
// inverse where Ext names one format: .json, .csv, .md or .markdown, in
// any case; anything else, .txt among them, is Text.
func FormatOfFile(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return JSON
	case ".csv":
		return CSV
	case ".md", ".markdown":
		return Markdown
	}
	return Text
}

// PlotFormatOfFile is the plot format a file name's extension asks for,
// in any case: one of PlotFormats ("png", "svg"), or "" if it names none.
func PlotFormatOfFile(name string) string {
	f := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	if !slices.Contains(PlotFormats, f) {
		return ""
	}
	return f
}
