package analysis

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseFormat(f *testing.F) {
	parsetest.Fuzz(f, ParseFormat, ErrInvalidInput, []Format{Text, Markdown, CSV, JSON}, "MD", "md", "Json")
}
