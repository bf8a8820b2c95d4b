package flagvalue_test

import (
	"fmt"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/internal/enum"
)

// color is an enumeration as gcbench's packages write them: a name table,
// its Parse, and a list of its names.
type color int

var colors = enum.New[color]("color", "colour", nil, "red", "green", "blue").Alias("grün", 1)

func (c color) String() string { return colors.String(c) }

func parseColor(s string) (color, error) { return colors.Parse(s) }

func TestEnum(t *testing.T) {
	var c color
	v := flagvalue.NewEnum(&c, 2, parseColor, colors.List())
	assert.Equal(t, color(2), c)
	assert.Equal(t, "blue", v.String())
	assert.Equal(t, "name", v.Type())
	// The refusals' message comes from the list, not from parse's error.
	checkSet(t, v, &c, []settles[color]{{"red", 0}, {" GREEN ", 1}, {"Grün", 1}},
		[]string{"mauve", "", "red,green"}, "want red, green or blue")
	assert.EqualError(t, parse(t, v, "mauve"), `invalid argument "mauve" for "--f" flag: want red, green or blue`)
}

// TestOneOfRefusesNamesItsParserRefuses: a flag whose list of names and
// parser disagree is a programming error, caught when the flag is made.
func TestOneOfRefusesNamesItsParserRefuses(t *testing.T) {
	assert.PanicsWithValue(t, `flagvalue.OneOf: the parser refuses its own name "teal": unknown colour "teal" (want red, green or blue)`,
		func() { flagvalue.OneOf(parseColor, []string{"red", "teal"}) })
	assert.PanicsWithValue(t, "flagvalue.OneOf: no names", func() { flagvalue.OneOf(parseColor, nil) })
}

func ExampleNewEnum() {
	var c color
	fs := pflag.NewFlagSet("paint", pflag.ContinueOnError)
	fs.Var(flagvalue.NewEnum(&c, 0, parseColor, colors.List()), "color", "the colour")
	fmt.Println(fs.Parse([]string{"--color", "teal"}))
	fmt.Println(fs.Parse([]string{"--color", "Blue"}), c)
	// Output:
	// invalid argument "teal" for "--color" flag: want red, green or blue
	// <nil> blue
}
