package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigValidateNamesTheField: every check reports a *ConfigError
// naming the field, the value as given and a bound stated as a number.
func TestConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, value, want string
		edit               func(*Config)
	}{
		{"MajorHeap", "0B", "> 0", func(c *Config) { c.MajorHeap = 0 }},
		{"MajorHeap", "-16KiB", "> 0", func(c *Config) { c.MajorHeap = -BlockSize }},
		{"MajorHeap", "16385B", "a multiple of 16KiB", func(c *Config) { c.MajorHeap = BlockSize + 1 }},
		{"MajorHeap", "1024TiB", "≤ 64TiB", func(c *Config) { c.MajorHeap = 1 << 50 }},
		{"LOS", "0B", "> 0", func(c *Config) { c.LOS = 0 }},
		{"LOS", "4104B", "a multiple of 4KiB", func(c *Config) { c.LOS = PageSize + 8 }},
		{"LOS", "65TiB", "≤ 64TiB", func(c *Config) { c.LOS = 65 << 40 }},
		{"Nursery", "4KiB", "≥ 64KiB", func(c *Config) { c.Nursery = 4096 }},
		{"Nursery", "65537B", "a multiple of 4KiB", func(c *Config) { c.Nursery = MinNursery + 1 }},
		{"Nursery", "80TiB", "≤ 64TiB", func(c *Config) { c.Nursery = 80 << 40 }},
		{"Roots", "0", "1..16777216", func(c *Config) { c.Roots = 0 }},
		{"Roots", "1073741824", "1..16777216", func(c *Config) { c.Roots = 1 << 30 }},
		// The sum is blamed on the largest space, with the most it may be.
		{"MajorHeap", "40TiB", "≤ 33.875TiB,", func(c *Config) { c.MajorHeap, c.LOS = 40<<40, 30<<40 }},
	} {
		cfg := smallConfig()
		tc.edit(&cfg)
		err := cfg.Validate()
		require.ErrorIs(t, err, ErrInvalidConfig, tc.field)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, tc.field, ce.Field)
		assert.Equal(t, tc.value, ce.Value, tc.field)
		assert.Contains(t, ce.Want, tc.want, tc.field)
		assert.Equal(t, "invalid heap configuration: "+tc.field+" = "+tc.value+", want "+ce.Want, err.Error())
		_, err = New(cfg)
		assert.ErrorAs(t, err, &ce)
	}
	require.NoError(t, DefaultConfig().Validate())
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0B", 1000: "1000B", 1024: "1KiB", 1536: "1.5KiB", 4097: "4097B", 16 << 10: "16KiB",
		2560 << 20: "2.5GiB", 2621441 << 10: "2621441KiB", 64 << 40: "64TiB", -(4 << 20): "-4MiB",
		(1 << 30) + (1 << 20): "1025MiB", 1<<30 + 1<<27: "1.125GiB",
	} {
		assert.Equal(t, want, FormatSize(n), "%d", n)
	}
}
