package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/internal/enum"
	"github.com/gcbench/gcbench/render"
)

// Shared flag types for gcbench's subcommands: byte sizes and the output
// format.

// sizeValue is a pflag.Value holding a byte size. A size above limit (when
// limit > 0: the machine's available memory) is rejected while parsing, so
// the error names the flag and the value.
type sizeValue struct {
	bytes *int64
	limit int64
	text  string // as the user typed it, for error messages
}

func newSizeValue(p *int64, def, limit int64) *sizeValue {
	*p = def
	return &sizeValue{bytes: p, limit: limit}
}

func (v *sizeValue) Set(s string) error {
	n, err := parseSizeWithin(s, v.limit)
	if err != nil {
		return err
	}
	*v.bytes, v.text = n, s
	return nil
}

// parseSizeWithin is bytesize.Parse, refusing sizes above limit (when
// limit > 0: the machine's available memory).
func parseSizeWithin(s string, limit int64) (int64, error) {
	n, err := bytesize.Parse(s)
	if err != nil {
		return 0, err
	}
	if limit > 0 && n > limit {
		return 0, fmt.Errorf("%w is more than this machine's available memory (%s)", bytesize.ErrInvalid, humanize.IBytes(uint64(limit)))
	}
	return n, nil
}

func (v *sizeValue) String() string { return bytesize.Format(*v.bytes) }
func (v *sizeValue) Type() string   { return "size" }

// formatValue is a pflag.Value holding a render.Format.
type formatValue struct{ f *render.Format }

func (v formatValue) Set(s string) error {
	f, err := render.ParseFormat(s)
	if err != nil {
		return fmt.Errorf("want one of %s", strings.Join(render.FormatNames(), ", "))
	}
	*v.f = f
	return nil
}

func (v formatValue) String() string { return v.f.String() }
func (v formatValue) Type() string   { return "format" }

// Every enum, list and count flag of every subcommand parses by the rules
// below, so that what one flag accepts another does too: names are
// trimmed and case-insensitive; a list has at least one item and none
// twice; a count has bounds, checked while parsing so that the error
// names the flag and the value.

// enumValue is a flag naming one value of an enumeration.
type enumValue[T fmt.Stringer] struct {
	p     *T
	parse func(string) (T, error)
	want  string // the accepted names, for the error
}

func newEnumValue[T fmt.Stringer](p *T, def T, parse func(string) (T, error), want string) *enumValue[T] {
	*p = def
	return &enumValue[T]{p: p, parse: parse, want: want}
}

func (v *enumValue[T]) Set(s string) error {
	x, err := v.parse(normalName(s))
	if err != nil {
		return fmt.Errorf("want %s", v.want)
	}
	*v.p = x
	return nil
}

func (v *enumValue[T]) String() string { return (*v.p).String() }
func (v *enumValue[T]) Type() string   { return "name" }

// choices names every value of vs as a choice for a message: "serial,
// perjob, batch or startbatch".
func choices[T fmt.Stringer](vs []T) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.String()
	}
	return enum.Or(names)
}

func normalName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// listValue is a comma-separated list flag. The first use of the flag
// replaces the default; a repeated flag adds to the list.
type listValue[T comparable] struct {
	p       *[]T
	parse   func(string) (T, error)
	show    func(T) string // an item as the help shows it (fmt.Sprint if nil)
	want    string         // what an item may be, for the error
	changed bool
}

func newListValue[T comparable](p *[]T, def []T, parse func(string) (T, error), want string) *listValue[T] {
	*p = def
	return &listValue[T]{p: p, parse: parse, want: want}
}

func (v *listValue[T]) Set(s string) error {
	var items []T
	if v.changed {
		items = *v.p
	}
	for _, field := range strings.Split(s, ",") {
		x, err := v.parse(normalName(field))
		switch {
		case strings.TrimSpace(field) == "":
			return fmt.Errorf("an empty item: want a comma-separated list of %s", v.want)
		case err != nil:
			return fmt.Errorf("%q: want %s", strings.TrimSpace(field), v.want)
		case slices.Contains(items, x):
			return fmt.Errorf("%q appears twice", strings.TrimSpace(field))
		}
		items = append(items, x)
	}
	*v.p, v.changed = items, true
	return nil
}

// showing has the list print its items with show, as a flag would take
// them (sizes as 512MiB rather than in bytes).
func (v *listValue[T]) showing(show func(T) string) *listValue[T] {
	v.show = show
	return v
}

func (v *listValue[T]) String() string {
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

func (v *listValue[T]) Type() string { return "list" }

// boundedInt returns a parser for an integer in [lo, hi], for count flags
// and the items of count lists.
func boundedInt(lo, hi int) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("want a whole number from %d to %d", lo, hi)
		}
		return n, nil
	}
}

// intValue is a count flag with inclusive bounds.
type intValue struct {
	p      *int
	lo, hi int
}

func newIntValue(p *int, def, lo, hi int) *intValue {
	*p = def
	return &intValue{p: p, lo: lo, hi: hi}
}

func (v *intValue) Set(s string) error {
	n, err := boundedInt(v.lo, v.hi)(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "int" }

// durationValue is a duration flag with inclusive bounds.
type durationValue struct {
	p      *time.Duration
	lo, hi time.Duration
}

func newDurationValue(p *time.Duration, def, lo, hi time.Duration) *durationValue {
	*p = def
	return &durationValue{p: p, lo: lo, hi: hi}
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < v.lo || d > v.hi {
		return fmt.Errorf("want a duration from %v to %v, like 2s or 100ms", v.lo, v.hi)
	}
	*v.p = d
	return nil
}

func (v *durationValue) String() string { return v.p.String() }
func (v *durationValue) Type() string   { return "duration" }
