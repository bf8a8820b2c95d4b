package modelcheck

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSGenRatiosAreTheSeedFigures holds the SGen ratios the many-core
// table prints against testdata/seeds.json, where each seed figure is
// typed once (cmd/gcbench's TestConstantsAreTheSeedFigures holds the
// exported constants).
func TestSGenRatiosAreTheSeedFigures(t *testing.T) {
	b, err := os.ReadFile("../../../../testdata/seeds.json")
	require.NoError(t, err)
	var doc struct {
		Figures []struct {
			ID    string  `json:"id"`
			Value float64 `json:"value"`
		} `json:"figures"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	fig := map[string]float64{}
	for _, f := range doc.Figures {
		fig[f.ID] = f.Value
	}
	require.Contains(t, fig, "sgen.trimmean10.batch_over_perjob")
	assert.Equal(t, fig["sgen.trimmean10.batch_over_perjob"], sgenTrimMean)
	averages := fig["sgen.avg.batch"] / fig["sgen.avg.perjob"]
	assert.Equal(t, math.Round(averages*1000)/1000, sgenAverages, "the seed's averages give %v", averages)
}
