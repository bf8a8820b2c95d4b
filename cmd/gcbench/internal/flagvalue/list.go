package flagvalue

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// List is a comma-separated list flag. The first use of the flag
// replaces the default; a repeated flag adds to the list, so that
// "--modes a,b" and "--modes a --modes b" are one list.
type List[T comparable] struct {
	p       *[]T
	parse   func(string) (T, error)
	show    func(T) string // an item as String spells it; nil: fmt.Sprint
	changed bool
}

// NewList returns a list flag stored in *p, default def, of the items
// parse accepts (IntIn, OneOf, bytesize.Parse), each given to it trimmed.
// Set refuses an empty item, an item parse refuses (with parse's error
// after the item: `"0": want a whole number from 1 to 64`; for an empty
// item, what parse says of "") and an item given twice, in one argument
// or across uses of the flag.
func NewList[T comparable](p *[]T, def []T, parse func(string) (T, error)) *List[T] {
	*p = def
	return &List[T]{p: p, parse: parse}
}

// Showing has String spell each item with show, as Set takes it back
// (sizes as 512MiB rather than in bytes), and returns v.
func (v *List[T]) Showing(show func(T) string) *List[T] {
	v.show = show
	return v
}

// Set adds the items of s to the list, replacing the default on the
// flag's first use, or returns why one cannot be added.
func (v *List[T]) Set(s string) error {
	var items []T
	if v.changed {
		items = slices.Clone(*v.p)
	}
	for _, field := range strings.Split(s, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			return v.emptyItem()
		}
		x, err := v.parse(field)
		switch {
		case err != nil:
			return fmt.Errorf("%q: %w", field, err)
		case slices.Contains(items, x):
			return fmt.Errorf("%q appears twice", field)
		}
		items = append(items, x)
	}
	*v.p, v.changed = items, true
	return nil
}

// emptyItem is Set's error for an empty item: with what parse says of
// "", which tells what an item may be.
func (v *List[T]) emptyItem() error {
	if _, err := v.parse(""); err != nil {
		return fmt.Errorf("an empty item: %w", err)
	}
	return errors.New("an empty item")
}

// String returns the items, comma-separated.
func (v *List[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		if v.show != nil {
			parts[i] = v.show(x)
		} else {
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ",")
}

// Type returns "list", the word --help shows for the argument.
func (v *List[T]) Type() string { return "list" }
