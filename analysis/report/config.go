package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Pair is one setting of a Config: its key and its value as tables
// show it.
type Pair struct {
	Key, Value string
}

// A Config is an experiment's configuration as reports show it, group by
// it and compare it: its settings' key/value pairs, each key once, in the
// order tables show them (the experiment's owner chooses it: for gcbench
// run, gcsim.Experiment.ReportConfig). Two Configs are the same
// configuration when they hold the same pairs in any order (Equal), so
// that a report written before the order mattered merges with one written
// after.
//
// Its JSON is one object of string values whose keys come in that order:
// a reader that ignores the order reads the same settings, so the schema
// is unchanged (Schema, SchemaV1), and reading keeps a file's order.
// Reports written before the order mattered have their keys sorted (as
// encoding/json writes a map), so they show as they always did. A key
// given twice, or a value that is not a string, is refused.
type Config []Pair

// Get returns the value of key k, and whether c has k.
func (c Config) Get(k string) (string, bool) {
	if i := slices.IndexFunc(c, func(p Pair) bool { return p.Key == k }); i >= 0 {
		return c[i].Value, true
	}
	return "", false
}

// Value returns the value of key k, or "" if c lacks it.
func (c Config) Value(k string) string {
	v, _ := c.Get(k)
	return v
}

// String returns c's pairs as "key=value", separated by spaces, in c's
// order: the config line of a table.
func (c Config) String() string {
	pairs := make([]string, len(c))
	for i, p := range c {
		pairs[i] = p.Key + "=" + p.Value
	}
	return strings.Join(pairs, " ")
}

// Sorted returns a copy of c with its pairs sorted by key: one spelling
// for every order of the same configuration.
func (c Config) Sorted() Config {
	return slices.SortedFunc(slices.Values(c), func(a, b Pair) int { return cmp.Compare(a.Key, b.Key) })
}

// Equal reports whether c and d hold the same pairs, in any order.
func (c Config) Equal(d Config) bool {
	_, differ := FirstDifference(c, d)
	return !differ
}

// FirstDifference returns the alphabetically first key whose value
// differs between the configurations a and b, a key only one of them has
// among them; ok is false when they are equal (in any order). Merge
// refuses reports by it.
func FirstDifference(a, b Config) (string, bool) {
	var keys []string
	for _, p := range append(slices.Clone(a), b...) {
		keys = append(keys, p.Key)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		va, oka := a.Get(k)
		vb, okb := b.Get(k)
		if oka != okb || va != vb {
			return k, true
		}
	}
	return "", false
}

// MarshalJSON writes c as one JSON object, its keys in c's order.
func (c Config) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil // as a nil map was written
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range c {
		k, err := json.Marshal(p.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// errConfigJSON is UnmarshalJSON's error about a document that is not an
// object of distinct keys with string values.
var errConfigJSON = errors.New("config: want an object of distinct keys with string values")

// UnmarshalJSON reads an object of string values, keeping its keys'
// order; null is a nil Config.
func (c *Config) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t == nil {
		*c = nil
		return err
	} else if t != json.Delim('{') {
		return errConfigJSON
	}
	out := Config{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k := t.(string) // inside an object, a token before a value is its key
		var v string
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%w: %q: %w", errConfigJSON, k, err)
		}
		if _, dup := out.Get(k); dup {
			return fmt.Errorf("%w: %q given twice", errConfigJSON, k)
		}
		out = append(out, Pair{k, v})
	}
	*c = out
	return nil
}
