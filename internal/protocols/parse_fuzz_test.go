package protocols

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParsePoolProtocol(f *testing.F) {
	parsetest.Fuzz(f, ParsePoolProtocol, ErrInvalidOptions, []PoolProtocol{Throughput, Latency}, "LATENCY", "tput")
}

func FuzzParseListKind(f *testing.F) {
	parsetest.Fuzz(f, ParseListKind, ErrInvalidOptions, []ListKind{MPSC, Mutex}, "MPSC", "lockfree")
}

func FuzzParseReadyVariant(f *testing.F) {
	parsetest.Fuzz(f, ParseReadyVariant, ErrInvalidOptions, []ReadyVariant{Transition, Callback}, "Callback", "cb")
}
