package gcsim

import (
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseMode(f *testing.F) {
	parsetest.Fuzz(f, ParseMode, ErrInvalidConfig, Modes(), "PerJob", "per-job", "start batch")
}
