// Package bytesize is gcbench's one spelling of byte counts: the parser
// behind every size flag and the formatter behind every size a flag
// default, a report, an error message or a generated page shows, so that
// what gcbench prints it also reads back.
//
// Binary units spell the i ("2.5GiB", "512Mi"); "GB", "G" and friends are
// decimal, like disk vendors and go-humanize.
package bytesize

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every error Parse returns. Its text is the
// subject of their messages ("size is empty"), which a caller such as a
// flag parser places after the flag's name and value.
var ErrInvalid = errors.New("size")

// Units names the accepted units, for a message.
const Units = "B, KiB, MiB, GiB, TiB or decimal KB, MB, GB, TB"

// units maps a unit (lower case) to its multiplier.
var units = map[string]int64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"ki": 1 << 10, "kib": 1 << 10, "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30,
	"ti": 1 << 40, "tib": 1 << 40,
}

// MaxLen bounds the text Parse looks at, so that absurd inputs are
// rejected before any arithmetic.
const MaxLen = 40

// Parse reads a byte size: a decimal number (digits, optionally a point
// and more digits), optional spaces, and an optional unit, case-insensitive:
// "2.5GiB", "2560MiB", "1GB", "4096". The result is a whole, positive
// number of bytes that fits in an int64; anything else (zero, a sign, an
// exponent, "1.5B", "0.1KiB") is an error wrapping ErrInvalid that says
// what is wrong. Parse(Format(n)) == n for every n > 0.
func Parse(s string) (int64, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return 0, fmt.Errorf("%w is empty", ErrInvalid)
	case len(t) > MaxLen:
		return 0, fmt.Errorf("%w is too long", ErrInvalid)
	case t[0] == '-':
		return 0, fmt.Errorf("%w must be positive", ErrInvalid)
	}
	whole, frac, rest, err := splitNumber(t)
	if err != nil {
		return 0, err
	}
	mult, ok := units[strings.ToLower(strings.TrimLeft(rest, " "))]
	if !ok {
		return 0, fmt.Errorf("%w has an unknown unit %q (want %s)", ErrInvalid, rest, Units)
	}
	return exact(whole, frac, mult)
}

// splitNumber splits t into the digits before and after its decimal point
// and what follows the number.
func splitNumber(t string) (whole, frac, rest string, err error) {
	i := digits(t, 0)
	whole = t[:i]
	if i < len(t) && t[i] == '.' {
		j := digits(t, i+1)
		frac, i = t[i+1:j], j
		if frac == "" {
			return "", "", "", fmt.Errorf("%w has no digits after the decimal point", ErrInvalid)
		}
	}
	if whole == "" {
		return "", "", "", fmt.Errorf("%w must start with a number, like 2.5GiB", ErrInvalid)
	}
	return whole, frac, t[i:], nil
}

// digits returns the end of the run of decimal digits starting at t[i].
func digits(t string, i int) int {
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i
}

// exact is whole.frac × mult, which must be a whole, positive int64.
func exact(whole, frac string, mult int64) (int64, error) {
	num, _ := new(big.Int).SetString(whole+frac, 10)
	num.Mul(num, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	switch {
	case r.Sign() != 0:
		return 0, fmt.Errorf("%w is not a whole number of bytes", ErrInvalid)
	case q.Sign() == 0:
		return 0, fmt.Errorf("%w must be positive", ErrInvalid)
	case !q.IsInt64():
		return 0, fmt.Errorf("%w is too large", ErrInvalid)
	}
	return q.Int64(), nil
}

// formatUnits are Format's units, in the order it tries them: a size is
// shown in the first whose range [mult, next) holds it.
var formatUnits = []struct {
	name       string
	mult, next int64
}{
	{"TiB", 1 << 40, 1 << 50}, {"GiB", 1 << 30, 1 << 40}, {"MiB", 1 << 20, 1 << 30}, {"KiB", 1 << 10, 1 << 20},
	{"TB", 1e12, 1e15}, {"GB", 1e9, 1e12}, {"MB", 1e6, 1e9}, {"KB", 1e3, 1e6},
}

// Format writes n bytes exactly, in the first unit that shows it as a
// number in [1, 1024) (binary units) or [1, 1000) (decimal units) with at
// most three decimals — "2.5GiB", "4MiB", "1GB", "1.001KB" — and otherwise
// in bytes ("1234567B"). A negative n (only an invalid setting has one) is
// "-" and the format of its magnitude.
func Format(n int64) string {
	if n < 0 && n != -n {
		return "-" + Format(-n)
	}
	for _, u := range formatUnits {
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
