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

	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

// configError returns err as a *setting.Error, failing the test otherwise.
func configError(t *testing.T, err error) *setting.Error {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalidConfig)
	var ce *setting.Error
	require.True(t, errors.As(err, &ce), "%v is not a *setting.Error", err)
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
		{"major_heap", "0B", "> 0", func(c *Config) { c.MajorHeap = 0 }},
		{"major_heap", "1KB", "a multiple of 16KiB", func(c *Config) { c.MajorHeap = 1000 }},
		{"major_heap", "1125899906842624B", "≤ 64TiB", func(c *Config) { c.MajorHeap = 1 << 50 }},
		{"los", "-1B", "> 0", func(c *Config) { c.LOS = -1 }},
		{"los", "4.097KB", "a multiple of 4KiB", func(c *Config) { c.LOS = 4097 }},
		{"nursery", "1B", "≥ 64KiB", func(c *Config) { c.Nursery = 1 }},
		{"nursery", "65.537KB", "a multiple of 4KiB", func(c *Config) { c.Nursery = 65537 }},
		{"roots", "3", "0 (default) or 64..16777216", func(c *Config) { c.Roots = 3 }},
		{"roots", "-1", "0 (default) or 64..16777216", func(c *Config) { c.Roots = -1 }},
		{"roots", "16777217", "0 (default) or 64..16777216", func(c *Config) { c.Roots = 1<<24 + 1 }},
		{"workers", "0", "1..4096", func(c *Config) { c.Workers = 0 }},
		{"workers", "4097", "1..4096", func(c *Config) { c.Workers = workerpool.MaxWorkers + 1 }},
		{"backend", "Backend(7)", "goroutines, threads or native", func(c *Config) { c.Backend = 7 }},
		{"mutex", "MutexKind(5)", "normal, pi or adaptive", func(c *Config) { c.Mutex = 5 }},
		{"wake", "WakePolicy(-1)", "broadcast, signal, targeted or spin", func(c *Config) { c.Wake = -1 }},
		{"mutator.major_fill", "0.99", "≤ 0.9", func(c *Config) { c.Mutator.MajorFill = 0.99 }},
		{"mutator.major_fill", "NaN", "≤ 0.9", func(c *Config) { c.Mutator.MajorFill = math.NaN() }},
		{"mutator.los_fill", "-0.1", "0 ≤ value", func(c *Config) { c.Mutator.LOSFill = -0.1 }},
		{"mutator.barrier_stores", "-1", "0..16777216", func(c *Config) { c.Mutator.BarrierStores = -1 }},
		{"mutator.barrier_stores", "1073741824", "0..16777216", func(c *Config) { c.Mutator.BarrierStores = 1 << 30 }},
		{"mutator.lifetime", "0", "1..65536", func(c *Config) { c.Mutator.Lifetime = 0 }},
		{"mutator.lifetime", "1024", "1..16 for mutator.barrier_stores 1048576", func(c *Config) {
			c.Mutator.BarrierStores, c.Mutator.Lifetime = 1<<20, 1<<10
		}},
		{"mutator.published", "0", "≥ 1", func(c *Config) { c.Mutator.Published = 0 }},
		{"mutator.root_share", "2", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.RootShare = 2 }},
		{"mutator.los_share", "0.6", "0..0.4, so that root_share + los_share ≤ 1", func(c *Config) {
			c.Mutator.RootShare, c.Mutator.LOSShare = 0.6, 0.6
		}},
		{"mutator.nursery_links", "-1", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.NurseryLinks = -1 }},
		{"mutator.old_links", "0.5", "0..0.25, so that nursery_links + old_links ≤ 1", func(c *Config) {
			c.Mutator.NurseryLinks, c.Mutator.OldLinks = 0.75, 0.5
		}},
		{"mutator.major_gc_free", "1.5", "0 ≤ value ≤ 1", func(c *Config) { c.Mutator.MajorGCFree = 1.5 }},
		{"mutator.large_objects", "-1", "0..65536", func(c *Config) { c.Mutator.LargeObjects = -1 }},
		{"mutator.max_large_object", "9000", "12097..1073741824", func(c *Config) { c.Mutator.MaxLargeObject = 9000 }},
		{"mutator.max_large_object", "1099511627776", "12097..1073741824", func(c *Config) { c.Mutator.MaxLargeObject = 1 << 40 }},
	} {
		cfg := tinyConfig(1, 4)
		tc.edit(&cfg)
		ce := configError(t, cfg.Validate())
		assert.Equal(t, tc.field, ce.Field)
		assert.Equal(t, tc.value, ce.Value, tc.field)
		assert.Contains(t, ce.Want, tc.want, tc.field)
		assert.Equal(t, "invalid configuration: "+tc.field+" = "+tc.value+", want "+ce.Want, ce.Error())
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
		{"nursery larger than the major heap can hold", "nursery", "at most 12MiB for a 64MiB major heap",
			func(c *Config) { c.Nursery = 64 << 20 }, func(c *Config, n int64) { c.Nursery = n }},
		{"4096 workers on a 64 MiB heap", "major_heap", "at least 350MiB for 4096 workers and a 4MiB nursery",
			func(c *Config) { c.Workers = 4096 }, func(c *Config, n int64) { c.MajorHeap = n }},
		{"small major heap, default nursery", "major_heap", "at least 13MiB for 2 workers and a 256KiB nursery",
			func(c *Config) { c.MajorHeap, c.Nursery, c.Mutator.MajorFill = 2<<20, 256<<10, 0.9 }, func(c *Config, n int64) { c.MajorHeap = n }},
		{"LOS too small for the large objects", "los", "at least 9MiB for mutator.los_fill 0.5 and 66 large objects of up to 64KiB",
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
		{"gcs", "≥ 1", CompareOptions{GCs: 0}},
		{"warmup", "≥ 0", CompareOptions{GCs: 1, Warmup: -1}},
		{"warmup", "fits an int", CompareOptions{GCs: math.MaxInt, Warmup: 50}},
		{"modes", "serial, perjob, batch or startbatch", CompareOptions{GCs: 1, Modes: []Mode{Batch, 9}}},
		{"modes", "each mode once", CompareOptions{GCs: 1, Modes: []Mode{Batch, Batch}}},
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
	assert.Equal(t, "workers", configError(t, err).Field)
	_, err = ParseMode("fast")
	assert.ErrorIs(t, err, ErrInvalidConfig)
	for _, m := range Modes() {
		got, err := ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
}
