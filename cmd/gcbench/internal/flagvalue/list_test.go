package flagvalue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/internal/bytesize"
)

func TestList(t *testing.T) {
	var got []int
	v := flagvalue.NewList(&got, []int{9}, flagvalue.IntIn(1, 64))
	assert.Equal(t, []int{9}, got)
	assert.Equal(t, "9", v.String())
	assert.Equal(t, "list", v.Type())

	require.NoError(t, v.Set(" 1, 2"))
	assert.Equal(t, []int{1, 2}, got, "the first use replaces the default")
	require.NoError(t, v.Set("4"))
	assert.Equal(t, []int{1, 2, 4}, got, "a repeated flag adds")
	assert.Equal(t, "1,2,4", v.String())

	for in, want := range map[string]string{
		"8,,16": "an empty item: want a whole number from 1 to 64",
		"8,":    "an empty item: want a whole number from 1 to 64",
		"":      "an empty item: want a whole number from 1 to 64",
		"8, 0":  `"0": want a whole number from 1 to 64`,
		"8,8":   `"8" appears twice`,
		"2":     `"2" appears twice`, // given by an earlier use
	} {
		assert.EqualError(t, v.Set(in), want, in)
		assert.Equal(t, []int{1, 2, 4}, got, "%q refused leaves the list", in)
	}
	assert.EqualError(t, parse(t, flagvalue.NewList(&got, nil, flagvalue.IntIn(1, 64)), "65"),
		`invalid argument "65" for "--f" flag: "65": want a whole number from 1 to 64`)
}

func TestListOfNames(t *testing.T) {
	var got []color
	v := flagvalue.NewList(&got, []color{0, 2}, flagvalue.OneOf(parseColor, colors.List()))
	assert.Equal(t, "red,blue", v.String(), "items spelled by their String")
	require.NoError(t, v.Set("Blue, grün"))
	assert.Equal(t, []color{2, 1}, got)
	assert.EqualError(t, v.Set("teal"), `"teal": want red, green or blue`)
	assert.EqualError(t, v.Set("red,"), "an empty item: want red, green or blue", "an empty item's error says what an item may be")
	assert.EqualError(t, v.Set("green"), `"green" appears twice`, "an alias and its name are one item")
}

func TestListShowing(t *testing.T) {
	var got []int64
	v := flagvalue.NewList(&got, []int64{512 << 20}, bytesize.Parse).Showing(bytesize.Format)
	assert.Equal(t, "512MiB", v.String())
	require.NoError(t, v.Set("1GiB,256mib"))
	assert.Equal(t, []int64{1 << 30, 256 << 20}, got)
	assert.Equal(t, "1GiB,256MiB", v.String())
	assert.EqualError(t, v.Set("lots"), `"lots": size must start with a number, like 2.5GiB`)
}

// TestListRefusesEmptyItemsItsParserTakes: an empty item is refused even
// when the item parser would take "".
func TestListRefusesEmptyItemsItsParserTakes(t *testing.T) {
	var got []string
	v := flagvalue.NewList(&got, nil, func(s string) (string, error) { return s, nil })
	assert.EqualError(t, v.Set("a,,b"), "an empty item")
	assert.Nil(t, got)
}
