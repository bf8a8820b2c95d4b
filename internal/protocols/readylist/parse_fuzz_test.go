package readylist

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/internal/protocols"
)

func FuzzParseListKind(f *testing.F) {
	parsetest.Fuzz(f, ParseListKind, protocols.ErrInvalidOptions, []ListKind{MPSC, Mutex}, "MPSC", "lockfree")
}

func FuzzParseReadyVariant(f *testing.F) {
	parsetest.Fuzz(f, ParseVariant, protocols.ErrInvalidOptions, []Variant{Transition, Callback}, "Callback", "cb")
}

func TestVariantNames(t *testing.T) {
	parsetest.Names(t, ParseVariant, VariantNames(), Transition, Callback)
}
