package heap

import (
	"math"
	"testing"

	"github.com/gcbench/gcbench/setting"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPopulateConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, want string
		edit        func(*PopulateConfig)
	}{
		{"populate.major_fill", "≤ 0.95", func(c *PopulateConfig) { c.MajorFill = 0.96 }},
		{"populate.major_fill", "0 ≤", func(c *PopulateConfig) { c.MajorFill = math.NaN() }},
		{"populate.los_fill", "≤ 0.95", func(c *PopulateConfig) { c.LOSFill = -0.5 }},
		{"populate.roots", "≥ 0", func(c *PopulateConfig) { c.Roots = -1 }},
		{"populate.max_large_object", "8192 to 2147483648", func(c *PopulateConfig) { c.MaxLargeObject = 100 }},
		{"populate.max_large_object", "8192 to 2147483648", func(c *PopulateConfig) { c.MaxLargeObject = 12 << 30 }},
	} {
		pc := DefaultPopulateConfig()
		tc.edit(&pc)
		var ce *setting.Error
		require.ErrorAs(t, pc.Validate(), &ce, tc.field)
		assert.Equal(t, tc.field, ce.Field)
		assert.Contains(t, ce.Want, tc.want)
		assert.ErrorIs(t, newHeap(t, smallConfig()).Populate(pc), ErrInvalidConfig)
	}
	require.NoError(t, DefaultPopulateConfig().Validate())
}

func TestPopulateSampleIsReachableAndUniform(t *testing.T) {
	h := newHeap(t, smallConfig())
	sample := make([]Addr, 200)
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.3, LOSFill: 0.3, Seed: 2, Sample: sample}))
	res, err := h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err)
	// Every sampled object is reachable: a major collection keeps every one.
	_, err = h.MajorCollect()
	require.NoError(t, err)
	distinct := map[Addr]bool{}
	for _, a := range sample {
		require.True(t, h.IsObject(a), "sampled %#x survives a major collection", a)
		require.Positive(t, h.NumRefs(a))
		distinct[a] = true
	}
	assert.Len(t, distinct, len(sample))
	// Not just the first objects built: some sampled objects come from the
	// second half of the major heap's blocks.
	late := 0
	used, _ := h.MajorUsage()
	for _, a := range sample {
		if h.SpaceOf(a) == SpaceMajor && h.BlockOf(a) > used/2 {
			late++
		}
	}
	assert.Positive(t, late)
	again, err := h.Verify(VerifyOptions{})
	require.NoError(t, err)
	assert.Equal(t, res, again)
}
