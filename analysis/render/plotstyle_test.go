package render

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"

	"github.com/gcbench/gcbench/analysis/report"
)

func tickLabels(ticks []plot.Tick) map[float64]string {
	out := map[float64]string{}
	for _, t := range ticks {
		out[t.Value] = t.Label
	}
	return out
}

// TestRatioTicksAreRoundAndLabelOne: a ratio axis reads 1.05 as "1.05"
// (it once read "1.1") and always labels 1.
func TestRatioTicksAreRoundAndLabelOne(t *testing.T) {
	got := tickLabels(ratioTicks{}.Ticks(0.97, 1.12))
	assert.Equal(t, "1.05", got[1.05], "%v", got)
	assert.Equal(t, "1.00", got[1], "%v", got)
	for v, l := range got {
		assert.InDelta(t, 0, math.Mod(math.Round(v*1000), 50), 1e-9, "tick %v (%s) is not a multiple of 0.05", v, l)
	}

	got = tickLabels(ratioTicks{}.Ticks(0.2, 1))
	assert.Equal(t, "1.0", got[1], "%v", got)
	assert.Equal(t, "0.4", got[0.4], "%v", got)

	got = tickLabels(ratioTicks{}.Ticks(0.3, 13)) // a step of 5 does not hit 1: it is added
	assert.Equal(t, "1.0", got[1], "%v", got)
}

// TestScalingPlotHoldsOneAndLeavesGaps: the ratio axis reaches 1 when
// every ratio is below it; a point that did not count a counter is a gap
// in its line, not a 0 (the panel's lowest value stays the lowest count);
// a counter no point counted draws no line.
func TestScalingPlotHoldsOneAndLeavesGaps(t *testing.T) {
	reports := []*report.Report{point(t, "2", "targeted", 0.5), point(t, "4", "targeted", 0.4), point(t, "8", "targeted", 0.3)}
	delete(reports[1].Runs[0].Modes[0].CounterMeans, "futex")
	delete(reports[1].Runs[0].Modes[1].CounterMeans, "futex")
	s, err := report.NewScaling(reports, "perjob", "batch", []report.ScalingCounter{{Key: "futex", Label: "futex calls"}, {Key: "none", Label: "uncounted"}})
	require.NoError(t, err)
	panels, err := scalingPanels(s)
	require.NoError(t, err)
	require.Len(t, panels, 3)
	assert.GreaterOrEqual(t, panels[0].Y.Max, 1.0, "the ratio axis holds 1")
	assert.Equal(t, 4.0, panels[1].Y.Min, "the lowest futex count is batch's 4: a missing point drew a 0")
	var svg bytes.Buffer
	require.NoError(t, WriteScalingPlot(&svg, s, "svg"))
	assert.Contains(t, svg.String(), ">1.0<", "the ratio axis labels 1")
	assert.NotContains(t, svg.String(), ">uncounted perjob<", "a counter nobody counted has no line in the legend")
	assert.True(t, strings.Contains(svg.String(), ">perjob<"), "the futex panel names its lines")
}

// TestAModeHasOneColourOnEveryPage: batch is drawn in one colour whether
// or not a report also has serial.
func TestAModeHasOneColourOnEveryPage(t *testing.T) {
	assert.Equal(t, modeColor("batch", 2, 255), modeColor("batch", 1, 255))
	assert.NotEqual(t, modeColor("batch", 0, 255), modeColor("perjob", 0, 255))
	assert.NotEqual(t, modeColor("other", 0, 255), modeColor("serial", 0, 255), "a name without a colour takes one no mode has")
}
