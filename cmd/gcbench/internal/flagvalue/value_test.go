package flagvalue_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
)

// parse sets a flag of a fresh FlagSet to arg, as a command line would,
// and returns pflag's error, which names the flag and the argument.
func parse(t *testing.T, v pflag.Value, arg string) error {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Var(v, "f", "a flag")
	return fs.Parse([]string{"--f", arg})
}

// settles is an argument Set accepts and the value it stores.
type settles[T any] struct {
	in   string
	want T
}

// checkSet sets v to each accepted argument in turn, checking what it
// stores in p, then to each refused one, checking that Set fails with
// wantErr and leaves p at the last accepted value.
func checkSet[T any](t *testing.T, v pflag.Value, p *T, accepted []settles[T], refused []string, wantErr string) {
	t.Helper()
	for _, tc := range accepted {
		require.NoError(t, v.Set(tc.in), tc.in)
		assert.Equal(t, tc.want, *p, tc.in)
	}
	last := accepted[len(accepted)-1].want
	for _, in := range refused {
		assert.EqualError(t, v.Set(in), wantErr, in)
		assert.Equal(t, last, *p, "%q refused leaves the value", in)
	}
}

func TestNew(t *testing.T) {
	var n int
	even := func(s string) (int, error) {
		x, err := strconv.Atoi(s)
		if err != nil || x%2 != 0 {
			return 0, errors.New("want an even number")
		}
		return x, nil
	}
	v := flagvalue.New(&n, 4, "even", even)
	assert.Equal(t, 4, n, "the default is stored")
	assert.Equal(t, "4", v.String())
	assert.Equal(t, "even", v.Type())
	require.NoError(t, v.Set("6"))
	assert.Equal(t, 6, n)
	assert.EqualError(t, v.Set("7"), "want an even number", "parse's error is Set's")
	assert.Equal(t, 6, n, "a refused argument leaves the value")
	assert.EqualError(t, parse(t, v, "3"), `invalid argument "3" for "--f" flag: want an even number`)
}

func TestInt(t *testing.T) {
	var n int
	v := flagvalue.NewInt(&n, 3, 1, 8)
	assert.Equal(t, 3, n)
	assert.Equal(t, "3", v.String())
	assert.Equal(t, "int", v.Type())
	checkSet(t, v, &n, []settles[int]{{"1", 1}, {"8", 8}, {" 5 ", 5}},
		[]string{"0", "9", "-1", "two", "", "1.5", "9223372036854775808"}, "want a whole number from 1 to 8")
	assert.EqualError(t, parse(t, v, "0"), `invalid argument "0" for "--f" flag: want a whole number from 1 to 8`)
}

func TestIntIn(t *testing.T) {
	n, err := flagvalue.IntIn(-1, 1)("-1")
	require.NoError(t, err)
	assert.Equal(t, -1, n)
	_, err = flagvalue.IntIn(-1, 1)("2")
	assert.EqualError(t, err, "want a whole number from -1 to 1")
}

func TestDuration(t *testing.T) {
	var d time.Duration
	v := flagvalue.NewDuration(&d, time.Second, time.Millisecond, time.Minute)
	assert.Equal(t, time.Second, d)
	assert.Equal(t, "1s", v.String())
	assert.Equal(t, "duration", v.Type())
	checkSet(t, v, &d, []settles[time.Duration]{{"1ms", time.Millisecond}, {"1m", time.Minute}, {" 150ms ", 150 * time.Millisecond}},
		[]string{"999us", "61s", "-1s", "2", "soon", ""}, "want a duration from 1ms to 1m0s, like 2s or 100ms")
}
