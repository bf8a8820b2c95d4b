package seeds

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/analysis/stats"
)

func TestFloatNeverPrintsMinusZero(t *testing.T) {
	for v, want := range map[float64]string{-0.3: "0", math.Copysign(0, -1): "0", 0.4: "0", -0.6: "-1", -12.4: "-12", 1e-9: "0"} {
		assert.Equal(t, want, Float(v, 0), "%v", v)
	}
	assert.Equal(t, "0.00", Float(-0.001, 2))
	assert.Equal(t, "-0.01", Float(-0.006, 2))
}

func TestSpreadCell(t *testing.T) {
	assert.Equal(t, "", SpreadCell(stats.SpreadOf(nil), 2), "an empty sample has no range")
	assert.Equal(t, "1.00–3.00", SpreadCell(stats.SpreadOf([]float64{3, 1, 2}), 2))
}
