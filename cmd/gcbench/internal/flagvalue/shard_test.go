package flagvalue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
)

func TestShard(t *testing.T) {
	i, n := 7, 8
	v := flagvalue.NewShard(&i, &n)
	assert.Equal(t, [2]int{0, 1}, [2]int{i, n}, "the default is all of the work")
	assert.Equal(t, "0/1", v.String())
	assert.Equal(t, "i/n", v.Type())
	require.NoError(t, v.Set(" 3 / 4 "))
	assert.Equal(t, [2]int{3, 4}, [2]int{i, n})
	assert.Equal(t, "3/4", v.String())
	for _, in := range []string{"4/4", "-1/4", "0/0", "1/", "/2", "a/b", "0/1/2", "3", ""} {
		assert.EqualError(t, v.Set(in), "want i/n with 0 ≤ i < n, like 0/4", in)
		assert.Equal(t, [2]int{3, 4}, [2]int{i, n}, "%q refused leaves the shard", in)
	}
}
