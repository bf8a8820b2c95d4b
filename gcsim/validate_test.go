package gcsim

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/workerpool"
)

// configError returns err as a *ConfigError, failing the test otherwise.
func configError(t *testing.T, err error) *ConfigError {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalidConfig)
	var ce *ConfigError
	require.True(t, errors.As(err, &ce), "%v is not a *ConfigError", err)
	return ce
}

// TestEveryValidateCheckNamesTheField: each check of Validate (the heap's,
// translated, and gcsim's own) reports the Config field path, the value as
// given, and a Want with the bound.
func TestEveryValidateCheckNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, value, want string
		edit               func(*Config)
	}{
		{"MajorHeap", "0B", "> 0", func(c *Config) { c.MajorHeap = 0 }},
		{"MajorHeap", "1000B", "a multiple of 16KiB", func(c *Config) { c.MajorHeap = 1000 }},
		{"MajorHeap", "1024TiB", "≤ 64TiB", func(c *Config) { c.MajorHeap = 1 << 50 }},
		{"LOS", "-1B", "> 0", func(c *Config) { c.LOS = -1 }},
		{"LOS", "4097B", "a multiple of 4KiB", func(c *Config) { c.LOS = 4097 }},
		{"Nursery", "1B", "≥ 64KiB", func(c *Config) { c.Nursery = 1 }},
		{"Nursery", "65537B", "a multiple of 4KiB", func(c *Config) { c.Nursery = 65537 }},
		{"Roots", "3", "0 (default) or 64..16777216", func(c *Config) { c.Roots = 3 }},
		{"Roots", "-1", "0 (default) or 64..16777216", func(c *Config) { c.Roots = -1 }},
		{"Roots", "16777217", "0 (default) or 64..16777216", func(c *Config) { c.Roots = 1<<24 + 1 }},
		{"Workers", "0", "1..4096", func(c *Config) { c.Workers = 0 }},
		{"Workers", "4097", "1..4096", func(c *Config) { c.Workers = workerpool.MaxWorkers + 1 }},
		{"Backend", "Backend(7)", "goroutines, threads or native", func(c *Config) { c.Backend = 7 }},
		{"Mutex", "MutexKind(5)", "normal, pi or adaptive", func(c *Config) { c.Mutex = 5 }},
		{"Wake", "WakePolicy(-1)", "broadcast, signal, targeted or spin", func(c *Config) { c.Wake = -1 }},
		{"Mutator.MajorFill", "0.99", "≤ 0.9", func(c *Config) { c.Mutator.MajorFill = 0.99 }},
		{"Mutator.MajorFill", "NaN", "≤ 0.9", func(c *Config) { c.Mutator.MajorFill = math.NaN() }},
		{"Mutator.LOSFill", "-0.1", "0 ≤ value", func(c *Config) { c.Mutator.LOSFill = -0.1 }},
		{"Mutator.BarrierStores", "-1", "0..16777216", func(c *Config) { c.Mutator.BarrierStores = -1 }},
		{"Mutator.BarrierStores", "1073741824", "0..16777216", func(c *Config) { c.Mutator.BarrierStores = 1 << 30 }},
		{"Mutator.Lifetime", "0", "1..65536", func(c *Config) { c.Mutator.Lifetime = 0 }},
		{"Mutator.Lifetime", "1024", "1..16 for Mutator.BarrierStores 1048576", func(c *Config) {
			c.Mutator.BarrierStores, c.Mutator.Lifetime = 1<<20, 1<<10
		}},
		{"Mutator.Published", "0", "≥ 1", func(c *Config) { c.Mutator.Published = 0 }},
		{"Mutator.RootShare", "2", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.RootShare = 2 }},
		{"Mutator.LOSShare", "0.6", "0..0.4, so that RootShare + LOSShare ≤ 1", func(c *Config) {
			c.Mutator.RootShare, c.Mutator.LOSShare = 0.6, 0.6
		}},
		{"Mutator.NurseryLinks", "-1", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.NurseryLinks = -1 }},
		{"Mutator.OldLinks", "0.5", "0..0.25, so that NurseryLinks + OldLinks ≤ 1", func(c *Config) {
			c.Mutator.NurseryLinks, c.Mutator.OldLinks = 0.75, 0.5
		}},
		{"Mutator.MajorGCFree", "1.5", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.MajorGCFree = 1.5 }},
		{"Mutator.LargeObjects", "-1", "0..65536", func(c *Config) { c.Mutator.LargeObjects = -1 }},
		{"Mutator.MaxLargeObject", "9000", "12097..1073741824", func(c *Config) { c.Mutator.MaxLargeObject = 9000 }},
		{"Mutator.MaxLargeObject", "1099511627776", "12097..1073741824", func(c *Config) { c.Mutator.MaxLargeObject = 1 << 40 }},
	} {
		cfg := tinyConfig(1, 4)
		tc.edit(&cfg)
		ce := configError(t, cfg.Validate())
		assert.Equal(t, tc.field, ce.Field)
		assert.Equal(t, tc.value, ce.Value, tc.field)
		assert.Contains(t, ce.Want, tc.want, tc.field)
		assert.Equal(t, "invalid gcsim configuration: "+tc.field+" = "+tc.value+", want "+ce.Want, ce.Error())
		_, err := New(cfg)
		assert.Equal(t, ce, configError(t, err), "New reports what Validate does")
	}
	require.NoError(t, DefaultConfig().Validate())
}

var boundRE = regexp.MustCompile(`^(at least|at most) ([0-9.]+)(KiB|MiB|GiB|TiB)`)

// bound parses the size a capacity error's Want starts with.
func bound(t *testing.T, want string) int64 {
	t.Helper()
	m := boundRE.FindStringSubmatch(want)
	require.NotNil(t, m, "want %q states no size", want)
	x, err := strconv.ParseFloat(m[2], 64)
	require.NoError(t, err)
	unit := map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m[3]]
	return int64(x * unit)
}

// TestTooSmallHeapsNameTheSettingAndAUsableBound covers heaps too small
// for their settings: a nursery larger than the major heap can hold, 4096
// workers on a 64 MiB heap, and an LOS too small for the mutator's large
// objects. Each names the field to change, and the bound in Want, applied,
// makes the configuration valid.
func TestTooSmallHeapsNameTheSettingAndAUsableBound(t *testing.T) {
	seedLike := func() Config {
		c := DefaultConfig()
		c.MajorHeap, c.LOS, c.Workers = 64<<20, 16<<20, 2
		return c
	}
	for _, tc := range []struct {
		name, field, want string
		edit              func(*Config)
		apply             func(*Config, int64)
	}{
		{"nursery larger than the major heap can hold", "Nursery", "at most 12MiB for a 64MiB major heap",
			func(c *Config) { c.Nursery = 64 << 20 }, func(c *Config, n int64) { c.Nursery = n }},
		{"4096 workers on a 64 MiB heap", "MajorHeap", "at least 350MiB for 4096 workers and a 4MiB nursery",
			func(c *Config) { c.Workers = 4096 }, func(c *Config, n int64) { c.MajorHeap = n }},
		{"small major heap, default nursery", "MajorHeap", "at least 13MiB for 2 workers and a 256KiB nursery",
			func(c *Config) { c.MajorHeap, c.Nursery, c.Mutator.MajorFill = 2<<20, 256<<10, 0.9 }, func(c *Config, n int64) { c.MajorHeap = n }},
		{"LOS too small for the large objects", "LOS", "at least 9MiB for Mutator.LOSFill 0.5 and 66 large objects of up to 64KiB",
			func(c *Config) { c.LOS = 1 << 20 }, func(c *Config, n int64) { c.LOS = n }},
	} {
		cfg := seedLike()
		tc.edit(&cfg)
		ce := configError(t, cfg.Validate())
		assert.Equal(t, tc.field, ce.Field, tc.name)
		assert.Contains(t, ce.Want, tc.want, tc.name)
		tc.apply(&cfg, bound(t, ce.Want))
		assert.NoError(t, cfg.Validate(), "%s: the bound in %q is enough", tc.name, ce.Want)
	}
}

// TestMajorHeapBoundIsTight: a major heap 1 MiB below the bound is refused,
// so the bound is the least that passes, not a generous guess.
func TestMajorHeapBoundIsTight(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.Workers, cfg.Backend = 1024, workerpool.Goroutines
	least := bound(t, configError(t, cfg.Validate()).Want)
	cfg.MajorHeap = least - 1<<20
	configError(t, cfg.Validate())
	cfg.MajorHeap = least
	require.NoError(t, cfg.Validate())
}

func TestCompareOptionErrorsNameTheOption(t *testing.T) {
	cfg := tinyConfig(1, 4)
	for _, tc := range []struct {
		field, want string
		opt         CompareOptions
	}{
		{"CompareOptions.GCs", "≥ 1", CompareOptions{GCs: 0}},
		{"CompareOptions.Warmup", "≥ 0", CompareOptions{GCs: 1, Warmup: -1}},
		{"CompareOptions.Warmup", "fits an int", CompareOptions{GCs: math.MaxInt, Warmup: 50}},
		{"CompareOptions.Modes", "serial, perjob, batch or startbatch", CompareOptions{GCs: 1, Modes: []Mode{Batch, 9}}},
	} {
		res, err := Compare(context.Background(), cfg, tc.opt)
		assert.Nil(t, res)
		ce := configError(t, err)
		assert.Equal(t, tc.field, ce.Field)
		assert.Contains(t, ce.Want, tc.want)
	}
	bad := cfg
	bad.Workers = 0
	res, err := Compare(context.Background(), bad, CompareOptions{GCs: 1})
	assert.Nil(t, res)
	assert.Equal(t, "Workers", configError(t, err).Field)
	_, err = ParseMode("fast")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	for _, m := range Modes() {
		got, err := ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
}
