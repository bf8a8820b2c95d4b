package poolbench

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/internal/protocols"
)

func FuzzParsePoolProtocol(f *testing.F) {
	parsetest.Fuzz(f, ParseProtocol, protocols.ErrInvalidOptions, []Protocol{Throughput, Latency}, "LATENCY", "tput")
}
