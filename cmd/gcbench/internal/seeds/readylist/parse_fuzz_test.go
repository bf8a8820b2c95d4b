package readylist

import (
	"testing"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseListKind(f *testing.F) {
	parsetest.Fuzz(f, ParseListKind, seeds.ErrInvalidOptions, []ListKind{MPSC, Mutex}, "MPSC", "lockfree")
}

func FuzzParseReadyVariant(f *testing.F) {
	parsetest.Fuzz(f, ParseVariant, seeds.ErrInvalidOptions, []Variant{Transition, Callback}, "Callback", "cb")
}

func TestVariantNames(t *testing.T) {
	parsetest.Names(t, ParseVariant, VariantNames(), Transition, Callback)
}
