package main

import (
	"testing"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormatFlags: the table commands' --format takes render's table
// formats, run's and report's bench too; each refusal lists what the flag
// takes.
func TestFormatFlags(t *testing.T) {
	f := render.Markdown
	v := formatFlag(&f)
	assert.Equal(t, "markdown", v.String(), "the flag's default is the format it finds")
	assert.Equal(t, "format", v.Type())
	require.NoError(t, v.Set("CSV"))
	assert.Equal(t, render.CSV, f)
	assert.EqualError(t, v.Set("yaml"), "want text, markdown, csv or json")
	assert.EqualError(t, v.Set("bench"), "want text, markdown, csv or json", "the table commands' --format has no bench")

	v = reportFormatFlag(&f)
	require.NoError(t, v.Set("BENCH"))
	assert.Equal(t, render.Bench, f)
	assert.Equal(t, "bench", v.String())
	assert.EqualError(t, v.Set("yaml"), "want text, markdown, csv, json or bench")
}
