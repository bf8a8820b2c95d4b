package trace

import "fmt"

// Policy, Memory and LockKind encode as their names in JSON and other
// text formats, and decode from any name their Parse function takes, so
// that a result that records its options says "lockless", not 0.

// MarshalText returns p's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (p Policy) MarshalText() ([]byte, error) { return marshalName(p, ParsePolicy) }

// UnmarshalText sets p from a name ParsePolicy takes.
func (p *Policy) UnmarshalText(b []byte) error { return unmarshalName(b, ParsePolicy, p) }

// MarshalText returns m's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (m Memory) MarshalText() ([]byte, error) { return marshalName(m, ParseMemory) }

// UnmarshalText sets m from a name ParseMemory takes.
func (m *Memory) UnmarshalText(b []byte) error { return unmarshalName(b, ParseMemory, m) }

// MarshalText returns k's name, or an error wrapping ErrInvalidOptions
// for a value that has none.
func (k LockKind) MarshalText() ([]byte, error) { return marshalName(k, ParseLockKind) }

// UnmarshalText sets k from a name ParseLockKind takes.
func (k *LockKind) UnmarshalText(b []byte) error { return unmarshalName(b, ParseLockKind, k) }

// marshalName is v's name if it parses back to v: an unknown value has no
// name to write that a reader would not take for another.
func marshalName[T interface {
	comparable
	fmt.Stringer
}](v T, parse func(string) (T, error)) ([]byte, error) {
	name := v.String()
	if back, err := parse(name); err != nil || back != v {
		return nil, fmt.Errorf("%w: %v has no name", ErrInvalidOptions, v)
	}
	return []byte(name), nil
}

func unmarshalName[T any](b []byte, parse func(string) (T, error), dst *T) error {
	v, err := parse(string(b))
	if err != nil {
		return err
	}
	*dst = v
	return nil
}
