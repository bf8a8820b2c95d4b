package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPairedRatios(t *testing.T) {
	assert.Equal(t, []float64{2, 0.5}, PairedRatios([]float64{4, 1, 9}, []float64{2, 2}), "pairs beyond the shorter sample have no ratio")
	assert.Equal(t, []float64{3}, PairedRatios([]float64{1, 6, 2}, []float64{0, 2, -1}), "a pair without a positive base has none")
	assert.Nil(t, PairedRatios(nil, []float64{1}))
}

func TestSpreadOf(t *testing.T) {
	xs := []float64{3, -1, 7, 2}
	assert.Equal(t, Spread{Lo: -1, Hi: 7, N: 4}, SpreadOf(xs))
	assert.Equal(t, []float64{3, -1, 7, 2}, xs, "SpreadOf left its input as it was")
	assert.Equal(t, Spread{}, SpreadOf(nil))
}
