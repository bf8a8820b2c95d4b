package render

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseFormat(f *testing.F) {
	parsetest.Fuzz(f, ParseFormat, ErrInvalidInput, []Format{Text, Markdown, CSV, JSON}, "MD", "md", "Json")
}

func FuzzParseReportFormat(f *testing.F) {
	parsetest.Fuzz(f, ParseReportFormat, ErrInvalidInput, []Format{Text, Markdown, CSV, JSON, Bench}, "BENCH", "benchstat")
}
