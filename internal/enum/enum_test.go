package enum_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/internal/enum"
)

type color int

var errBad = errors.New("bad options")

var colors = enum.New[color]("color", "colour", errBad, "red", "green", "blue").Alias("grün", 1)

func (c color) String() string                { return colors.String(c) }
func (c color) MarshalText() ([]byte, error)  { return colors.Marshal(c) }
func (c *color) UnmarshalText(b []byte) error { return colors.Unmarshal(b, c) }

func TestNames(t *testing.T) {
	assert.Equal(t, "green", color(1).String())
	assert.Equal(t, "color(7)", color(7).String())
	assert.Equal(t, "color(-1)", color(-1).String())
	assert.Equal(t, []string{"red", "green", "blue"}, colors.List())
	assert.Equal(t, "red, green or blue", colors.Want())
	assert.Equal(t, []color{0, 1, 2}, colors.Values())
	assert.True(t, colors.Valid(2))
	assert.False(t, colors.Valid(3))
	assert.Equal(t, "a or b", enum.Or([]string{"a", "b"}))

	for _, s := range []string{"blue", "BLUE", "Blue"} {
		c, err := colors.Parse(s)
		require.NoError(t, err, s)
		assert.Equal(t, color(2), c)
	}
	c, err := colors.Parse("GRÜN")
	require.NoError(t, err)
	assert.Equal(t, color(1), c)

	_, err = colors.Parse("mauve")
	require.ErrorIs(t, err, errBad)
	assert.EqualError(t, err, `bad options: unknown colour "mauve" (want red, green or blue)`)
}

func TestMarshal(t *testing.T) {
	b, err := json.Marshal(map[string]color{"a": 2})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":"blue"}`, string(b))

	_, err = json.Marshal(color(3))
	require.ErrorIs(t, err, errBad)
	assert.Contains(t, err.Error(), "colour color(3) has no name")

	var c color
	require.NoError(t, json.Unmarshal([]byte(`"Red"`), &c))
	assert.Equal(t, color(0), c)
	err = json.Unmarshal([]byte(`"teal"`), &c)
	require.ErrorIs(t, err, errBad)
	assert.Equal(t, color(0), c, "a refused name leaves the value alone")
}

func TestNoSentinel(t *testing.T) {
	plain := enum.New[color]("color", "colour", nil, "red")
	_, err := plain.Parse("x")
	assert.EqualError(t, err, `unknown colour "x" (want red)`)
	assert.Equal(t, "", enum.New[color]("color", "colour", nil).Want())
}
