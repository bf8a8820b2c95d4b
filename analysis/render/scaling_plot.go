package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gcbench/gcbench/analysis/report"
)

// WritePlot draws the scaling against ScalingX (workers): the trimmed-mean
// ratio with its interval as error bars, one line per combination of the
// other varying keys (a wake policy, say), and below it one panel per
// counter with a line per combination and mode. format is "png" or "svg".
func WriteScalingPlot(w io.Writer, s *report.Scaling, format string) error {
	panels, err := scalingPanels(s)
	if err != nil {
		return err
	}
	return writePanels(w, format, panels...)
}

// plotPanels are WritePlot's panels, top to bottom.
func scalingPanels(s *report.Scaling) ([]*plot.Plot, error) {
	groups, err := scalingGroups(s)
	if err != nil {
		return nil, err
	}
	ratio := plot.New()
	ratio.Title.Text = fmt.Sprintf("TrimMean 10%% %s/%s (95%% bootstrap CI)", s.New, s.Base)
	ratio.X.Label.Text, ratio.Y.Label.Text = report.ScalingX, "ratio"
	ratio.Legend.Top = true
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	ratio.Add(one)
	for i, g := range groups {
		if err = addRatioLine(ratio, g, i); err != nil {
			return nil, err
		}
	}
	// "No change" is drawn and labelled: the axis holds 1 and marks it.
	ratio.Y.Min, ratio.Y.Max = min(ratio.Y.Min, 1), max(ratio.Y.Max, 1)
	ratio.Y.Tick.Marker = ratioTicks{}
	panels := []*plot.Plot{ratio}
	for _, c := range s.Counters {
		p := plot.New()
		p.Title.Text = c.Label + " per collection"
		p.X.Label.Text, p.Y.Label.Text = report.ScalingX, c.Label
		p.Legend.Top, p.Legend.Left = true, true // counters grow to the right
		p.X.Min, p.X.Max = math.Inf(1), math.Inf(-1)
		counted := false
		for _, pt := range s.Points {
			_, b := pt.BaseMeans[c.Key]
			_, n := pt.NewMeans[c.Key]
			counted = counted || b || n
		}
		if !counted { // an empty panel, said so, its axis not running below zero
			p.Title.Text += " (not counted by these points)"
			p.Y.Min, p.Y.Max = 0, 1
		}
		for i, g := range groups {
			for j, mode := range []string{s.Base, s.New} {
				means := func(pt report.ScalingPoint) map[string]float64 { return pt.BaseMeans }
				if j == 1 {
					means = func(pt report.ScalingPoint) map[string]float64 { return pt.NewMeans }
				}
				if err := addCounterLine(p, joinLabel(g.label, mode), g, func(pt report.ScalingPoint) (float64, bool) {
					v, ok := means(pt)[c.Key]
					return v, ok
				}, modeColor(mode, j, 255), i); err != nil {
					return nil, err
				}
			}
		}
		panels = append(panels, p)
	}
	for _, p := range panels {
		workersAxis(p, groups)
	}
	return panels, nil
}

// workersAxis puts the x axis on a log2 scale with a tick at every
// measured worker count when the counts span a factor of four or more
// (1, 2, 4, … 32 would otherwise crowd into the left corner).
func workersAxis(p *plot.Plot, groups []scalingGroup) {
	seen := map[float64]bool{}
	var ticks []plot.Tick
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range groups {
		for _, x := range g.x {
			lo, hi = min(lo, x), max(hi, x)
			if !seen[x] {
				seen[x] = true
				ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
			}
		}
	}
	// Every panel spans every measured count, a counter's with no line as well.
	p.X.Min, p.X.Max = min(p.X.Min, lo), max(p.X.Max, hi)
	if lo <= 0 || hi < 4*lo {
		return
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
}

// A scalingGroup is the points of one line: those that share every
// varying key but ScalingX, in order of ScalingX.
type scalingGroup struct {
	label  string
	points []report.ScalingPoint
	x      []float64
}

func scalingGroups(s *report.Scaling) ([]scalingGroup, error) {
	var others []string
	hasX := false
	for _, k := range s.Keys {
		if k == report.ScalingX {
			hasX = true
		} else {
			others = append(others, k)
		}
	}
	if !hasX {
		return nil, fmt.Errorf("%w: the points do not vary %s, so there is nothing to plot against it", ErrInvalidInput, report.ScalingX)
	}
	var groups []scalingGroup
	index := map[string]int{}
	for _, p := range s.Points { // sorted by the keys, ScalingX last
		x, err := strconv.ParseFloat(p.Value(report.ScalingX), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s=%q is not a number", ErrInvalidInput, report.ScalingX, p.Value(report.ScalingX))
		}
		var parts []string
		for _, k := range others {
			parts = append(parts, k+"="+p.Value(k))
		}
		label := strings.Join(parts, " ")
		i, ok := index[label]
		if !ok {
			i = len(groups)
			index[label] = i
			groups = append(groups, scalingGroup{label: label})
		}
		groups[i].points = append(groups[i].points, p)
		groups[i].x = append(groups[i].x, x)
	}
	return groups, nil
}

func joinLabel(group, mode string) string {
	if group == "" {
		return mode
	}
	return group + " " + mode
}

// ratioPoints are a group's trimmed-mean ratios with their intervals, as
// gonum's error bars want them.
type ratioPoints struct {
	plotter.XYs
	plotter.YErrors
}

func addRatioLine(p *plot.Plot, g scalingGroup, i int) error {
	pts := ratioPoints{XYs: make(plotter.XYs, len(g.points)), YErrors: make(plotter.YErrors, len(g.points))}
	for k, pt := range g.points {
		r := pt.TrimMean10
		pts.XYs[k] = plotter.XY{X: g.x[k], Y: r.Value}
		pts.YErrors[k].Low, pts.YErrors[k].High = r.Value-r.CI.Lo, r.CI.Hi-r.Value
	}
	label := g.label
	if label == "" {
		label = "all points"
	}
	// A ratio is no mode: its lines are black, told apart by dashes and
	// glyphs, so that no colour means a mode here and another elsewhere.
	if err := addSegment(p, label, pts.XYs, color.Black, i); err != nil {
		return err
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return fmt.Errorf("render: scaling plot: %w", err)
	}
	bars.Color = color.Black
	bars.CapWidth = 2 * vg.Millimeter
	p.Add(bars)
	return nil
}

// addSegment draws xys in colour c with glyph group i's dashes and shape,
// and names it in the legend unless label is empty.
func addSegment(p *plot.Plot, label string, xys plotter.XYs, c color.Color, i int) error {
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("render: scaling plot: %w", err)
	}
	line.Color, points.Color = c, c
	line.Dashes, points.Shape = plotutil.Dashes(i), plotutil.Shape(i)
	p.Add(line, points)
	if label != "" {
		p.Legend.Add(label, line, points)
	}
	return nil
}

// addCounterLine draws the counter value of g's points that counted it;
// a point that did not (the Native backend's futex calls) is a gap in the
// line, never a 0, and a group none of whose points counted it draws no
// line and no legend entry.
func addCounterLine(p *plot.Plot, label string, g scalingGroup, value func(report.ScalingPoint) (float64, bool), c color.Color, i int) error {
	var segments []plotter.XYs
	var cur plotter.XYs
	for k, pt := range g.points {
		v, ok := value(pt)
		if !ok {
			if len(cur) > 0 {
				segments, cur = append(segments, cur), nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: g.x[k], Y: v})
	}
	if len(cur) > 0 {
		segments = append(segments, cur)
	}
	for s, xys := range segments {
		if s > 0 {
			label = "" // one legend entry for the whole line
		}
		if err := addSegment(p, label, xys, c, i); err != nil {
			return err
		}
	}
	return nil
}
