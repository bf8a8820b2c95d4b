package gcsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/setting"
)

// Config and MutatorConfig encode as JSON objects keyed by their settings'
// keys, sizes as bytesize spells them, enumerations by name:
//
//	{"major_heap": "2.5GiB", "los": "1GiB", "nursery": "4MiB", "roots": 4096,
//	 "workers": 8, "backend": "native", "wake": "broadcast", "mutex": "pi",
//	 "seed": 1, "verify": false, "mutator": {"major_fill": 0.6, ...}}
//
// Decoding is strict: a key that names no setting, or a value the setting
// cannot hold, null included, is a *setting.Error naming the key (with its
// path: "mutator.major_fill"); a key that is absent keeps the value it
// had, so decoding onto DefaultConfig fills in what a document leaves out.
// It does not Validate: a combination of settings is checked where it is
// used.
// Trace is not encoded.

// MarshalJSON encodes c's settings, in a fixed order.
func (c Config) MarshalJSON() ([]byte, error) { return marshalFields(c.fields()) }

// UnmarshalJSON sets the settings the object names; see above.
func (c *Config) UnmarshalJSON(data []byte) error { return unmarshalFields(data, c.fields()) }

// MarshalJSON encodes m's settings, in a fixed order.
func (m MutatorConfig) MarshalJSON() ([]byte, error) { return marshalFields(m.fields()) }

// UnmarshalJSON sets the settings the object names; see above.
func (m *MutatorConfig) UnmarshalJSON(data []byte) error { return unmarshalFields(data, m.fields()) }

// A field is one setting as JSON holds it: its key, where its value lives,
// and what a value must be (for the error about a bad one).
type field struct {
	key  string
	v    any // a pointer
	want string
}

const (
	wantSize  = "a size like 2.5GiB, 512MiB or 1GB"
	wantInt   = "a whole number"
	wantFrac  = "a number"
	wantBool  = "true or false"
	wantWakes = "broadcast, signal, targeted or spin"
)

func (c *Config) fields() []field {
	return []field{
		{heap.KeyMajorHeap, (*size)(&c.MajorHeap), wantSize},
		{heap.KeyLOS, (*size)(&c.LOS), wantSize},
		{heap.KeyNursery, (*size)(&c.Nursery), wantSize},
		{heap.KeyRoots, &c.Roots, wantInt},
		{KeyWorkers, &c.Workers, wantInt},
		{KeyBackend, &c.Backend, "goroutines, threads or native"},
		{KeyWake, &c.Wake, wantWakes},
		{KeyMutex, &c.Mutex, "normal, pi or adaptive"},
		{KeySeed, &c.Seed, "a whole number ≥ 0"},
		{KeyVerify, &c.Verify, wantBool},
		{KeyMutator, &c.Mutator, "an object of mutator settings"},
		{KeyKernelSnapshot, &c.KernelSnapshot, wantBool},
	}
}

func (m *MutatorConfig) fields() []field {
	return []field{
		{"major_fill", &m.MajorFill, wantFrac}, {"los_fill", &m.LOSFill, wantFrac},
		{"barrier_stores", &m.BarrierStores, wantInt}, {"published", &m.Published, wantInt},
		{"lifetime", &m.Lifetime, wantInt},
		{"root_share", &m.RootShare, wantFrac}, {"los_share", &m.LOSShare, wantFrac},
		{"nursery_links", &m.NurseryLinks, wantFrac}, {"old_links", &m.OldLinks, wantFrac},
		{"large_objects", &m.LargeObjects, wantInt}, {"max_large_object", &m.MaxLargeObject, wantInt},
		{"major_gc_free", &m.MajorGCFree, wantFrac},
	}
}

// size is a byte count that encodes as bytesize spells it.
type size int64

func (s size) String() string { return bytesize.Format(int64(s)) }

func (s size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *size) UnmarshalText(text []byte) error {
	n, err := bytesize.Parse(string(text))
	if err != nil {
		return err
	}
	*s = size(n)
	return nil
}

// marshalFields writes fs as a JSON object, in their order.
func marshalFields(fs []field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, fmt.Errorf("gcsim: encoding %s: %w", f.key, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", f.key, v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// unmarshalFields sets the fields a JSON object names, refusing a key
// that is not one of fs and a value its field cannot hold.
func unmarshalFields(data []byte, fs []field) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%w: want a JSON object of settings: %w", setting.ErrInvalid, err)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad key is the same every time
	for _, k := range keys {
		i := slices.IndexFunc(fs, func(f field) bool { return f.key == k })
		if i < 0 {
			return &setting.Error{Field: k, Value: string(obj[k]), Want: "no such key: the settings are " + fieldKeys(fs),
				Err: setting.ErrUnknown}
		}
		if err := unmarshalField(obj[k], fs[i]); err != nil {
			return err
		}
	}
	return nil
}

// unmarshalField sets f from raw. A nested object's error about one of its
// own keys is returned with f's key in front ("mutator.major_fill").
func unmarshalField(raw json.RawMessage, f field) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) { // json would leave the value as it was: the default, unasked
		return &setting.Error{Field: f.key, Value: "null", Want: f.want}
	}
	err := json.Unmarshal(raw, f.v)
	if err == nil {
		return nil
	}
	var inner *setting.Error
	if errors.As(err, &inner) && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		out := *inner
		out.Field = f.key + "." + inner.Field
		return &out
	}
	return &setting.Error{Field: f.key, Value: string(raw), Want: f.want}
}

// fieldKeys lists the keys of fs for a message.
func fieldKeys(fs []field) string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return fmt.Sprint(keys)
}
