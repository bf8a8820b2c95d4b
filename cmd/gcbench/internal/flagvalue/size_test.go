package flagvalue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
)

func TestSize(t *testing.T) {
	var n int64
	v := flagvalue.NewSize(&n, 5<<20, 8<<30)
	assert.Equal(t, int64(5<<20), n)
	assert.Equal(t, "5MiB", v.String())
	assert.Equal(t, "size", v.Type())
	assert.Equal(t, "", v.Text(), "nothing typed yet")

	require.NoError(t, v.Set("2560MiB"))
	assert.Equal(t, int64(2560<<20), n)
	assert.Equal(t, "2560MiB", v.Text())
	assert.Equal(t, "2.5GiB", v.String())
	require.NoError(t, v.Set("8GiB"), "the available memory itself fits")

	for in, want := range map[string]string{
		"9GiB": "size is more than this machine's available memory (8.0 GiB)",
		"0":    "size must be positive",
		"-1":   "size must be positive",
		"lots": "size must start with a number, like 2.5GiB",
	} {
		err := v.Set(in)
		assert.ErrorContains(t, err, want, in)
		assert.Equal(t, int64(8<<30), n, "%q refused leaves the size", in)
		assert.Equal(t, "8GiB", v.Text(), "%q refused leaves the text", in)
	}
	assert.EqualError(t, parse(t, v, "9GiB"),
		`invalid argument "9GiB" for "--f" flag: size is more than this machine's available memory (8.0 GiB)`)
}

func TestSizeWithoutMemoryBound(t *testing.T) {
	var n int64
	require.NoError(t, flagvalue.NewSize(&n, 1, 0).Set("1000TiB"))
	assert.Equal(t, int64(1000<<40), n)
}
