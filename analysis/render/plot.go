package render

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

// Plot dimensions: three panels stacked on a page.
const (
	plotWidth     = 8 * vg.Inch
	plotHeight    = 10 * vg.Inch
	histogramBins = 60
)

// minLogPause is the smallest pause (µs) a logarithmic axis starts at: one
// nanosecond, the clock's resolution. Smaller positive values only come
// from edited files; they would give the log axis hundreds of decades (and
// below 1e-323, a tick loop that never ends), so they get a linear axis.
const minLogPause = 1e-3

// PlotFormats lists the formats WritePlot draws (and the file extensions
// that name them).
var PlotFormats = []string{"png", "svg"}

// WritePlot draws three panels, one series per mode (per host and mode in
// a merged report): overlaid pause histograms over shared bins, box plots,
// and empirical CDFs. Boxes show the table's quartiles (QUARTILE.INC: edges
// Q1 and Q3, line the median; whiskers reach the furthest samples within
// 1.5 IQR); CDFs are empirical step functions, which cross p at Quantile's
// (type 1) value. Pause distributions have long
// tails that would squash their bodies: the histogram's axis stops at the
// pooled p99 (its label counts what it leaves out), and the box plots and
// CDFs show every sample on a logarithmic pause axis (linear if a sample is
// below 1 ns). format is "png" or "svg".
func WritePlot(w io.Writer, r *report.Report, format string) error {
	panels, err := plotPanels(r)
	if err != nil {
		return err
	}
	return writePanels(w, format, panels...)
}

// plotPanels are WritePlot's panels, top to bottom (WriteHTML draws each
// as a figure of its own).
func plotPanels(r *report.Report) ([]*plot.Plot, error) {
	series := seriesOf(r)
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: nothing to plot", ErrInvalidInput)
	}
	var pooled []float64
	for _, s := range series {
		pooled = append(pooled, s.mode.Pauses...)
	}
	slices.Sort(pooled)
	p99 := stats.Quantile(pooled, 0.99)
	lo, hi := pooled[0], pooled[len(pooled)-1]
	logScale := lo >= minLogPause
	if logScale && lo == hi {
		// gonum widens an empty axis range to [lo−1, hi+1], which is not
		// positive below 1 µs and makes its log scale panic: widen it here
		// by a factor instead.
		lo, hi = lo/2, hi*2
	}

	hist, err := histogramPanel(series, pooled[0], p99)
	if err != nil {
		return nil, err
	}
	box, err := boxPanel(series, lo, hi, logScale)
	if err != nil {
		return nil, err
	}
	cdf, err := cdfPanel(series, lo, hi, logScale)
	if err != nil {
		return nil, err
	}
	hist.Title.Text = r.Title + ": " + hist.Title.Text

	panels := []*plot.Plot{hist, box, cdf}
	if r.Anatomy != nil && len(r.Anatomy.Parts) > 0 {
		a, err := anatomyPanel(r)
		if err != nil {
			return nil, err
		}
		panels = append(panels, a)
	}
	return panels, nil
}

// writePanels draws plots stacked on one page in format ("png" or "svg").
func writePanels(w io.Writer, format string, panels ...*plot.Plot) error {
	var canvas vg.CanvasWriterTo
	height := plotHeight * vg.Length(len(panels)) / 3
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(plotWidth, height)}
	case "svg":
		canvas = vgsvg.New(plotWidth, height)
	default:
		return fmt.Errorf("%w: plot format %q (want png or svg)", ErrInvalidInput, format)
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	grid := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, tiles, dc)
	for i := range grid {
		grid[i][0].Draw(canvases[i][0])
	}
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("render: writing %s plot: %w", format, err)
	}
	return nil
}

type series struct {
	label string
	mode  *report.Mode
	run   int // the run's index in the report
}

func seriesOf(r *report.Report) []series {
	var out []series
	labels := runLabels(r)
	for ri := range r.Runs {
		run := &r.Runs[ri]
		for mi := range run.Modes {
			label := run.Modes[mi].Name
			if labels[ri] != "" {
				label = labels[ri] + "/" + label
			}
			out = append(out, series{label: label, mode: &run.Modes[mi], run: ri})
		}
	}
	return out
}

func seriesColor(i int, alpha uint8) color.Color {
	r, g, b, _ := plotutil.Color(i).RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: alpha}
}

// histogramPanel overlays one histogram per series over the same bins
// spanning [lo, hi]; samples above hi are left out (counted in the title).
func histogramPanel(ss []series, lo, hi float64) (*plot.Plot, error) {
	p := plot.New()
	p99 := hi
	width := (hi - lo) / histogramBins
	if !(width > 0) { // every pause the same, or a span so small that a bin has no width: widen the bins' span, not the p99 it is labelled with
		hi = lo + 1
		width = (hi - lo) / histogramBins
	}
	beyond := 0
	for i, s := range ss {
		bins := make([]plotter.HistogramBin, histogramBins)
		for b := range bins {
			bins[b] = plotter.HistogramBin{Min: lo + float64(b)*width, Max: lo + float64(b+1)*width}
		}
		for _, v := range s.mode.Pauses {
			if v > hi {
				beyond++
				continue
			}
			b := max(0, min(int((v-lo)/width), histogramBins-1))
			bins[b].Weight++
		}
		h := &plotter.Histogram{Bins: bins, Width: width, FillColor: modeColor(s.mode.Name, i, 0x60)}
		h.LineStyle.Width = vg.Points(0.5)
		h.LineStyle.Color = modeColor(s.mode.Name, i, 0xff)
		h.LineStyle.Dashes = plotutil.Dashes(s.run) // a mode's colour is the same on every host: the outline tells the runs apart
		p.Add(h)
		p.Legend.Add(s.label, h)
	}
	p.Title.Text = "histograms over shared bins"
	samples := "samples"
	if beyond == 1 {
		samples = "sample"
	}
	p.X.Label.Text = fmt.Sprintf("pause (µs); %d %s above the pooled p99 (%.1f) not shown", beyond, samples, p99)
	p.Y.Label.Text = "collections"
	p.X.Min, p.X.Max = lo, hi
	p.Y.Max *= 1.3 // headroom for the legend
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// boxPanel draws one box per series with the package's quantiles.
func boxPanel(ss []series, lo, hi float64, logScale bool) (*plot.Plot, error) {
	p := plot.New()
	names := make([]string, len(ss))
	for i, s := range ss {
		b, err := plotter.NewBoxPlot(vg.Points(40), float64(i), plotter.Values(s.mode.Pauses))
		if err != nil {
			return nil, fmt.Errorf("render: box plot of %s: %w", s.label, err)
		}
		useQuantiles(b, s.mode.Summary)
		b.FillColor = modeColor(s.mode.Name, i, 0x60)
		p.Add(b)
		names[i] = s.label
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(ss))-0.4 // room for the outer boxes
	p.Title.Text = "box plots: box Q1–Q3, line median, whiskers 1.5 IQR, circles beyond"
	p.Y.Label.Text = "pause (µs)"
	p.Y.Min, p.Y.Max = lo, hi
	if logScale {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, ticks125{}
		p.Y.Label.Text += ", log scale"
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// useQuantiles replaces gonum's own box statistics (medians of halves) by
// the Summary's, and recomputes the whiskers and outliers from them.
func useQuantiles(b *plotter.BoxPlot, s stats.Summary) {
	b.Quartile1, b.Median, b.Quartile3 = s.Q1, s.Median, s.Q3
	iqr := s.Q3 - s.Q1
	loFence, hiFence := s.Q1-1.5*iqr, s.Q3+1.5*iqr
	b.AdjLow, b.AdjHigh = math.Inf(1), math.Inf(-1)
	b.Outside = b.Outside[:0]
	for i, v := range b.Values {
		if v < loFence || v > hiFence {
			b.Outside = append(b.Outside, i)
			continue
		}
		b.AdjLow, b.AdjHigh = min(b.AdjLow, v), max(b.AdjHigh, v)
	}
	if math.IsInf(b.AdjLow, 0) { // every value an outlier cannot happen, but stay finite
		b.AdjLow, b.AdjHigh = s.Q1, s.Q3
	}
}

// cdfPanel draws each series' empirical CDF as a step function: at pause x
// the line is at the fraction of collections whose pause is ≤ x.
func cdfPanel(ss []series, lo, hi float64, logScale bool) (*plot.Plot, error) {
	p := plot.New()
	for i, s := range ss {
		sorted := slices.Clone(s.mode.Pauses)
		slices.Sort(sorted)
		n := float64(len(sorted))
		pts := make(plotter.XYs, 0, len(sorted)+1)
		pts = append(pts, plotter.XY{X: sorted[0], Y: 0})
		for j, v := range sorted {
			pts = append(pts, plotter.XY{X: v, Y: float64(j+1) / n})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("render: CDF of %s: %w", s.label, err)
		}
		l.StepStyle = plotter.PostStep // F(x) = k/n on [x_k, x_{k+1}): the step up comes at each sample, not before it
		l.Color = modeColor(s.mode.Name, i, 0xff)
		l.Width = vg.Points(1)
		l.Dashes = plotutil.Dashes(i)
		p.Add(l)
		p.Legend.Add(s.label, l)
	}
	p.Title.Text = "empirical CDFs"
	p.X.Label.Text = "pause (µs)"
	if logScale {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, ticks125{}
		p.X.Label.Text += ", log scale"
	}
	p.Y.Label.Text = "fraction of collections ≤ x"
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = false // bottom right: where every CDF is already near 1 is the top right
	p.Add(plotter.NewGrid())
	return p, nil
}

// ticks125 marks a logarithmic axis at 1, 2 and 5 times each power of ten
// (labelled) and at the other integer multiples (unlabelled, unless the
// axis spans less than a decade), so short ranges still get labels.
type ticks125 struct{}

func (ticks125) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for decade := math.Pow(10, math.Floor(math.Log10(min))); decade <= max; decade *= 10 {
		for m := 1.0; m < 10; m++ {
			v := m * decade
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 || max/min < 10 { // label all within one decade
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
