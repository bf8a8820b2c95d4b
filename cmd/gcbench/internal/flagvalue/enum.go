package flagvalue

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gcbench/gcbench/internal/enum"
)

// NewEnum returns a flag naming one value of an enumeration, stored in
// *p, default def: parse reads a name and names lists every name it
// accepts, as the enumeration's own list gives them
// (workerpool.WakePolicyNames()). See OneOf.
func NewEnum[T fmt.Stringer](p *T, def T, parse func(string) (T, error), names []string) *Value[T] {
	return New(p, def, "name", OneOf(parse, names))
}

// OneOf returns the parser of an enumeration's flag or list items: parse,
// given the name trimmed and in lower case, and, for a name it refuses,
// an error that lists names ("want a, b or c"). It panics if names is
// empty or parse refuses one of them: a flag never offers a name it
// refuses.
func OneOf[T any](parse func(string) (T, error), names []string) func(string) (T, error) {
	if len(names) == 0 {
		panic("flagvalue.OneOf: no names")
	}
	for _, n := range names {
		if _, err := parse(n); err != nil {
			panic(fmt.Sprintf("flagvalue.OneOf: the parser refuses its own name %q: %v", n, err))
		}
	}
	want := errors.New("want " + enum.Or(names))
	return func(s string) (T, error) {
		x, err := parse(strings.ToLower(strings.TrimSpace(s)))
		if err != nil {
			var zero T
			return zero, want
		}
		return x, nil
	}
}
