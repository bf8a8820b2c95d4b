package heap

import (
	"testing"

	"github.com/gcbench/gcbench/setting"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigValidateNamesTheField: every check reports a *setting.Error
// naming the field, the value as given and a bound stated as a number.
func TestConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, value, want string
		edit               func(*Config)
	}{
		{KeyMajorHeap, "0B", "> 0", func(c *Config) { c.MajorHeap = 0 }},
		{KeyMajorHeap, "-16KiB", "> 0", func(c *Config) { c.MajorHeap = -BlockSize }},
		{KeyMajorHeap, "16.385KB", "a multiple of 16KiB", func(c *Config) { c.MajorHeap = BlockSize + 1 }},
		{KeyMajorHeap, "1125899906842624B", "≤ 64TiB", func(c *Config) { c.MajorHeap = 1 << 50 }},
		{KeyLOS, "0B", "> 0", func(c *Config) { c.LOS = 0 }},
		{KeyLOS, "4.104KB", "a multiple of 4KiB", func(c *Config) { c.LOS = PageSize + 8 }},
		{KeyLOS, "65TiB", "≤ 64TiB", func(c *Config) { c.LOS = 65 << 40 }},
		{KeyNursery, "4KiB", "≥ 64KiB", func(c *Config) { c.Nursery = 4096 }},
		{KeyNursery, "65.537KB", "a multiple of 4KiB", func(c *Config) { c.Nursery = MinNursery + 1 }},
		{KeyNursery, "80TiB", "≤ 64TiB", func(c *Config) { c.Nursery = 80 << 40 }},
		{KeyRoots, "0", "1..16777216", func(c *Config) { c.Roots = 0 }},
		{KeyRoots, "1073741824", "1..16777216", func(c *Config) { c.Roots = 1 << 30 }},
		// The sum is blamed on the largest space, with the most it may be.
		{KeyMajorHeap, "40TiB", "≤ 33.875TiB,", func(c *Config) { c.MajorHeap, c.LOS = 40<<40, 30<<40 }},
	} {
		cfg := smallConfig()
		tc.edit(&cfg)
		err := cfg.Validate()
		require.ErrorIs(t, err, ErrInvalidConfig, tc.field)
		var ce *setting.Error
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, tc.field, ce.Field)
		assert.Equal(t, tc.value, ce.Value, tc.field)
		assert.Contains(t, ce.Want, tc.want, tc.field)
		assert.Equal(t, "invalid configuration: "+tc.field+" = "+tc.value+", want "+ce.Want, err.Error())
		_, err = New(cfg)
		assert.ErrorAs(t, err, &ce)
	}
	require.NoError(t, DefaultConfig().Validate())
}

// TestCheckMemory: a heap over the available memory is refused, the
// largest space blamed with a bound that fits, and ErrTooLarge wrapped.
func TestCheckMemory(t *testing.T) {
	cfg := smallConfig()
	require.NoError(t, cfg.CheckMemory(0), "unknown memory: no check")
	require.NoError(t, cfg.CheckMemory(1<<40))
	cfg.MajorHeap, cfg.LOS = 3<<30, 1<<30
	err := cfg.CheckMemory(2<<30 + 12345)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorIs(t, err, ErrInvalidConfig)
	var ce *setting.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, KeyMajorHeap, ce.Field)
	assert.Equal(t, "3GiB", ce.Value)
	assert.Equal(t, "at most 2GiB (this machine's available memory)", ce.Want)

	cfg.MajorHeap = 1536 << 20
	require.ErrorAs(t, cfg.CheckMemory(2<<30), &ce)
	assert.Equal(t, KeyMajorHeap, ce.Field)
	assert.Contains(t, ce.Want, "≤ 896MiB, so that the major heap, LOS and nursery together fit in this machine's available memory (2GiB)")
}
