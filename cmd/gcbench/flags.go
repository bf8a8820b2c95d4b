package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/gcbench/gcbench/render"
	"golang.org/x/sys/unix"
)

// Shared flag types for gcbench's subcommands: byte sizes and the output
// format.

// errSize marks a size the parser rejects.
var errSize = errors.New("size")

// sizeUnits maps a unit (lower case) to its multiplier. Binary units spell
// the i ("GiB", "Gi"); "GB", "G" and friends are decimal, like disk vendors
// and go-humanize.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
	"ti": 1 << 40, "tib": 1 << 40,
}

// maxSizeLen bounds the text parseSize looks at, so that absurd inputs are
// rejected before any arithmetic.
const maxSizeLen = 40

// parseSize parses a byte size: a decimal number (digits, optionally a
// point and more digits), optional spaces, and an optional unit from
// sizeUnits, case-insensitive: "2.5GiB", "2560MiB", "1GB", "4096". The
// result must be a whole, positive number of bytes that fits in an int64;
// anything else (zero, a sign, an exponent, "1.5B", "0.1KiB") is an error
// wrapping errSize.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return 0, fmt.Errorf("%w is empty", errSize)
	case len(t) > maxSizeLen:
		return 0, fmt.Errorf("%w is too long", errSize)
	case t[0] == '-':
		return 0, fmt.Errorf("%w must be positive", errSize)
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	whole := t[:i]
	frac := ""
	if i < len(t) && t[i] == '.' {
		j := i + 1
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		frac, i = t[i+1:j], j
		if frac == "" {
			return 0, fmt.Errorf("%w has no digits after the decimal point", errSize)
		}
	}
	if whole == "" {
		return 0, fmt.Errorf("%w must start with a number, like 2.5GiB", errSize)
	}
	unit := strings.ToLower(strings.TrimLeft(t[i:], " "))
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("%w has an unknown unit %q (want B, KiB, MiB, GiB, TiB or decimal KB, MB, GB, TB)", errSize, t[i:])
	}
	// bytes = whole.frac × mult, exactly.
	num, _ := new(big.Int).SetString(whole+frac, 10)
	num.Mul(num, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	switch {
	case r.Sign() != 0:
		return 0, fmt.Errorf("%w is not a whole number of bytes", errSize)
	case q.Sign() == 0:
		return 0, fmt.Errorf("%w must be positive", errSize)
	case !q.IsInt64():
		return 0, fmt.Errorf("%w is too large", errSize)
	}
	return q.Int64(), nil
}

// formatSize writes n bytes in the first unit that shows it exactly as a
// number in [1, 1024) (binary units) or [1, 1000) (decimal units) with at
// most three decimals — "2.5GiB", "4MiB", "1GB" — else in bytes, so that
// parseSize(formatSize(n)) == n.
func formatSize(n int64) string {
	for _, u := range []struct {
		name       string
		mult, next int64
	}{
		{"TiB", 1 << 40, 1 << 50}, {"GiB", 1 << 30, 1 << 40}, {"MiB", 1 << 20, 1 << 30}, {"KiB", 1 << 10, 1 << 20},
		{"TB", 1e12, 1e15}, {"GB", 1e9, 1e12}, {"MB", 1e6, 1e9}, {"KB", 1e3, 1e6},
	} {
		if n < u.mult || n >= u.next {
			continue
		}
		for decimals, scale := 0, int64(1); decimals <= 3; decimals, scale = decimals+1, scale*10 {
			if n*scale%u.mult == 0 { // n < 2^50, so n*1000 cannot overflow
				return strconv.FormatFloat(float64(n)/float64(u.mult), 'f', decimals, 64) + u.name
			}
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

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

// parseSizeWithin is parseSize, refusing sizes above limit (when limit >
// 0: the machine's available memory).
func parseSizeWithin(s string, limit int64) (int64, error) {
	n, err := parseSize(s)
	if err != nil {
		return 0, err
	}
	if limit > 0 && n > limit {
		return 0, fmt.Errorf("%w is more than this machine's available memory (%s)", errSize, humanize.IBytes(uint64(limit)))
	}
	return n, nil
}

func (v *sizeValue) String() string { return formatSize(*v.bytes) }
func (v *sizeValue) Type() string   { return "size" }

// availableMemory returns the memory the kernel reports as available for
// new allocations (MemAvailable), or failing that free RAM; 0 if unknown.
func availableMemory() int64 {
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		if n := memAvailable(f); n > 0 {
			return n
		}
	}
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err == nil {
		return int64(si.Freeram+si.Bufferram) * int64(si.Unit)
	}
	return 0
}

// memAvailable is MemAvailable from a /proc/meminfo, in bytes; 0 if it is
// missing, not a positive count of kB or too large for an int64 in bytes.
func memAvailable(meminfo io.Reader) int64 {
	sc := bufio.NewScanner(meminfo)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 && kb <= math.MaxInt64>>10 {
				return kb << 10
			}
		}
	}
	return 0
}

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

// formatForFile picks the format a file name suggests: .json, .csv, .md;
// anything else is text.
func formatForFile(name string) render.Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return render.JSON
	case ".csv":
		return render.CSV
	case ".md", ".markdown":
		return render.Markdown
	}
	return render.Text
}

// formatForPlot returns the plot format a file name asks for ("png",
// "svg"), lower case, or its extension if it is neither.
func formatForPlot(name string) string {
	return strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
}

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
