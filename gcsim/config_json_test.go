package gcsim

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

// TestConfigJSONRoundTrip: a Config reads back exactly as it was written,
// and the JSON spells sizes and enumerations as the flags do.
func TestConfigJSONRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.MajorHeap, c.Workers, c.Backend, c.Mutex, c.Wake = 2560<<20, 8, workerpool.Native, workerpool.MutexPI, workerpool.Targeted
	c.Mutator.MajorFill, c.Verify, c.Seed = 0.75, true, 1<<63+5
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `{"major_heap":"2.5GiB","los":"1GiB","nursery":"4MiB","roots":4096,"workers":8,`+
		`"backend":"native","wake":"targeted","mutex":"pi","seed":9223372036854775813,"verify":true,"mutator":{"major_fill":0.75,`)
	var back Config
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, c, back)
}

// TestConfigJSONRefusesNamingTheKey: an unknown key, or a value its setting
// cannot hold, is a *setting.Error naming the key, nested keys by path.
func TestConfigJSONRefusesNamingTheKey(t *testing.T) {
	for _, tc := range []struct {
		doc, key string
		unknown  bool
	}{
		{`{"workers": 2, "wrokers": 3}`, "wrokers", true},
		{`{"mutator": {"major_fil": 0.5}}`, "mutator.major_fil", true},
		{`{"workers": "many"}`, "workers", false},
		{`{"major_heap": "2.5XB"}`, "major_heap", false},
		{`{"major_heap": 2684354560}`, "major_heap", false},
		{`{"wake": "shout"}`, "wake", false},
		{`{"mutator": {"lifetime": 1.5}}`, "mutator.lifetime", false},
		{`{"mutator": 3}`, "mutator", false},
		{`{"verify": "yes"}`, "verify", false},
	} {
		c := DefaultConfig()
		err := json.Unmarshal([]byte(tc.doc), &c)
		var se *setting.Error
		require.ErrorAs(t, err, &se, tc.doc)
		assert.Equal(t, tc.key, se.Field, tc.doc)
		assert.ErrorIs(t, err, setting.ErrInvalid, tc.doc)
		assert.Equal(t, tc.unknown, errors.Is(err, setting.ErrUnknown), tc.doc)
	}
	var c Config
	assert.ErrorIs(t, json.Unmarshal([]byte(`[1]`), &c), setting.ErrInvalid)
}

// TestConfigJSONKeepsWhatIsAbsent: decoding onto the defaults fills in the
// settings a document leaves out.
func TestConfigJSONKeepsWhatIsAbsent(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, json.Unmarshal([]byte(`{"workers": 3, "mutator": {"lifetime": 4}}`), &c))
	want := DefaultConfig()
	want.Workers, want.Mutator.Lifetime = 3, 4
	assert.Equal(t, want, c)
}

// TestValidateKeysAreJSONKeys: every key a Validate error names is a key
// of Config's JSON, so that a refused setting can be found in a file.
func TestValidateKeysAreJSONKeys(t *testing.T) {
	c := DefaultConfig()
	keys := map[string]bool{}
	for _, f := range c.fields() {
		keys[f.key] = true
	}
	for _, f := range c.Mutator.fields() {
		keys[KeyMutator+"."+f.key] = true
	}
	for _, edit := range []func(*Config){
		func(c *Config) { c.MajorHeap = 1 }, func(c *Config) { c.LOS = 1 }, func(c *Config) { c.Nursery = 1 },
		func(c *Config) { c.Roots = 3 }, func(c *Config) { c.Workers = 0 }, func(c *Config) { c.Backend = 9 },
		func(c *Config) { c.Wake = 9 }, func(c *Config) { c.Mutex = 9 }, func(c *Config) { c.Mutator.Lifetime = 0 },
		func(c *Config) { c.Mutator.MajorGCFree = 2 }, func(c *Config) { c.Mutator.MaxLargeObject = 1 },
	} {
		c := DefaultConfig()
		edit(&c)
		var se *setting.Error
		require.ErrorAs(t, c.Validate(), &se)
		assert.True(t, keys[se.Field], "%s is not a JSON key", se.Field)
	}
}

// TestExperimentJSONRoundTrip: an Experiment's flat object reads back
// exactly, and refuses an unknown key by name.
func TestExperimentJSONRoundTrip(t *testing.T) {
	e := Experiment{Config: DefaultConfig(), Modes: []Mode{Serial, Batch}, GCs: 1500, Warmup: 50, GOMAXPROCS: 9, LockCollector: true}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"modes":["serial","batch"],"gcs":1500,"warmup":50,"gomaxprocs":9,"lock_collector":true}`)
	var back Experiment
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, e, back)
	assert.Equal(t, CompareOptions{Modes: e.Modes, GCs: 1500, Warmup: 50}, back.Options())

	var se *setting.Error
	require.ErrorAs(t, json.Unmarshal([]byte(`{"gcs": 3, "gc": 4}`), &back), &se)
	assert.Equal(t, "gc", se.Field)
	require.ErrorAs(t, json.Unmarshal([]byte(`{"modes": ["serial", "sideways"]}`), &back), &se)
	assert.Equal(t, "modes", se.Field)
}
