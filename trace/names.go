package trace

// Policy, Memory and LockKind encode as their names in JSON and other
// text formats, and decode from any name their Parse function takes, so
// that a result that records its options says "lockless", not 0.

// MarshalText returns p's name.
func (p Policy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText sets p from a name ParsePolicy takes.
func (p *Policy) UnmarshalText(b []byte) error { return unmarshalName(b, ParsePolicy, p) }

// MarshalText returns m's name.
func (m Memory) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText sets m from a name ParseMemory takes.
func (m *Memory) UnmarshalText(b []byte) error { return unmarshalName(b, ParseMemory, m) }

// MarshalText returns k's name.
func (k LockKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText sets k from a name ParseLockKind takes.
func (k *LockKind) UnmarshalText(b []byte) error { return unmarshalName(b, ParseLockKind, k) }

func unmarshalName[T any](b []byte, parse func(string) (T, error), dst *T) error {
	v, err := parse(string(b))
	if err != nil {
		return err
	}
	*dst = v
	return nil
}
