package render

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// modeColorIndex fixes the colour of each of gcbench run's modes, so that
// a mode has one colour in every panel and on every page, whatever other
// modes a report has; other names take the colours after them.
var modeColorIndex = map[string]int{"serial": 0, "perjob": 1, "batch": 2, "startbatch": 3}

// modeColor is the colour of mode name: its fixed one, or for a name
// without one the colour after them at its index among a page's series.
func modeColor(name string, index int, alpha uint8) color.Color {
	if i, ok := modeColorIndex[name]; ok {
		return seriesColor(i, alpha)
	}
	return seriesColor(len(modeColorIndex)+index, alpha)
}

// ratioTicks marks a ratio axis at round values, 1, 2, 2.5 or 5 times a
// power of ten apart (about five of them), each labelled with the decimals
// its step needs and at least one (1.05 reads "1.05", never "1.1"; 1
// reads "1.0"), and always marks and labels 1 when the axis holds it.
type ratioTicks struct{}

func (ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', 1, 64)}}
	}
	step := roundStep((hi - lo) / 5)
	dec := max(1, stepDecimals(step))
	var ticks []plot.Tick
	hasOne := false
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v-1) < step*1e-9 {
			v, hasOne = 1, true
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
	}
	if !hasOne && lo <= 1 && 1 <= hi {
		ticks = append(ticks, plot.Tick{Value: 1, Label: strconv.FormatFloat(1, 'f', dec, 64)})
	}
	return ticks
}

// roundStep is the smallest of 1, 2, 2.5 and 5 times a power of ten that
// is at least raw.
func roundStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// stepDecimals is how many decimals write multiples of step exactly (at
// most 9).
func stepDecimals(step float64) int {
	for d := 0; d < 9; d++ {
		x := step * math.Pow(10, float64(d))
		if math.Abs(x-math.Round(x)) < 1e-6*x {
			return d
		}
	}
	return 9
}
