package poolbench

import (
	"testing"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParsePoolProtocol(f *testing.F) {
	parsetest.Fuzz(f, ParseProtocol, seeds.ErrInvalidOptions, []Protocol{Throughput, Latency}, "LATENCY", "tput")
}
