package flagvalue_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/flagvalue"
)

// parse sets a flag of a fresh FlagSet to arg, as a command line would,
// and returns pflag's error, which names the flag and the argument.
func parse(t *testing.T, v pflag.Value, arg string) error {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Var(v, "f", "a flag")
	return fs.Parse([]string{"--f", arg})
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
	for _, tc := range []struct {
		in   string
		want int
	}{{"1", 1}, {"8", 8}, {" 5 ", 5}} { // the last one stays for the refusals below
		require.NoError(t, v.Set(tc.in), tc.in)
		assert.Equal(t, tc.want, n, tc.in)
	}
	for _, in := range []string{"0", "9", "-1", "two", "", "1.5", "9223372036854775808"} {
		assert.EqualError(t, v.Set(in), "want a whole number from 1 to 8", in)
		assert.Equal(t, 5, n, "%q refused leaves the value", in)
	}
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
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"1ms", time.Millisecond}, {"1m", time.Minute}, {" 150ms ", 150 * time.Millisecond}} { // the last one stays
		require.NoError(t, v.Set(tc.in), tc.in)
		assert.Equal(t, tc.want, d, tc.in)
	}
	for _, in := range []string{"999us", "61s", "-1s", "2", "soon", ""} {
		assert.EqualError(t, v.Set(in), "want a duration from 1ms to 1m0s, like 2s or 100ms", in)
		assert.Equal(t, 150*time.Millisecond, d, "%q refused leaves the value", in)
	}
}
