package termprogress

import (
	"bytes"
	"strings"
	"testing"
)

// TestSeriesCountsAcrossComparisons: a comparison's modes count from 0,
// on top of the comparisons already done.
func TestSeriesCountsAcrossComparisons(t *testing.T) {
	var b bytes.Buffer
	p := NewSeries(&b, "sweep", 40, 0)
	p.Update(0, 10)
	p.Update(1, 10)
	p.Next()
	p.Update(0, 5)
	p.Update(-1, 7) // ignored
	out := b.String()
	p.Finish()
	for _, want := range []string{"sweep", "20/40", "25/40"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q: %q", want, out)
		}
	}
}

func TestNoSeriesOffTerminalOrWithNothingToCount(t *testing.T) {
	if p := SeriesOnTerminal(&bytes.Buffer{}, "sweep", 10); p != nil {
		t.Error("progress on a buffer")
	}
	var p *Series
	p.Update(0, 1) // a nil progress is a no-op
	p.Next()
	p.Finish()
}
