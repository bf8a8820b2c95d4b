package flagvalue

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Value is a flag holding one T, which Set parses and checks.
type Value[T any] struct {
	p     *T
	parse func(string) (T, error)
	word  string
}

// New returns a flag that stores def in *p, then each argument parse
// accepts; parse's error, which must say what the flag wants, is Set's.
// word is what --help shows for the argument ("--batch-size int"). String
// spells *p as fmt.Sprint does, which parse must accept.
func New[T any](p *T, def T, word string, parse func(string) (T, error)) *Value[T] {
	*p = def
	return &Value[T]{p: p, parse: parse, word: word}
}

// Set stores the value s names, or returns why it cannot.
func (v *Value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

// String returns the value held, as fmt.Sprint spells it.
func (v *Value[T]) String() string { return fmt.Sprint(*v.p) }

// Type returns the word --help shows for the argument.
func (v *Value[T]) Type() string { return v.word }

// NewInt returns a flag holding a whole number from lo to hi in *p,
// default def.
func NewInt(p *int, def, lo, hi int) *Value[int] { return New(p, def, "int", IntIn(lo, hi)) }

// IntIn returns a parser of a whole number from lo to hi, spaces around
// it ignored, whose error states the bounds: the parser of NewInt, and of
// a list of counts (NewList).
func IntIn(lo, hi int) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("want a whole number from %d to %d", lo, hi)
		}
		return n, nil
	}
}

// NewDuration returns a flag holding a duration from lo to hi in *p,
// default def, in time.ParseDuration's spelling ("2s", "100ms").
func NewDuration(p *time.Duration, def, lo, hi time.Duration) *Value[time.Duration] {
	return New(p, def, "duration", func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < lo || d > hi {
			return 0, fmt.Errorf("want a duration from %v to %v, like 2s or 100ms", lo, hi)
		}
		return d, nil
	})
}
