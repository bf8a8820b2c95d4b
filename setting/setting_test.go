package setting_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/setting"
)

var errCause = errors.New("cause")

func TestErrorIsFoundThroughWrapping(t *testing.T) {
	err := fmt.Errorf("gcsim: %w", &setting.Error{Field: "major_heap", Value: "64MiB", Want: "at least 350MiB"})
	var se *setting.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "major_heap", se.Field)
	assert.ErrorIs(t, err, setting.ErrInvalid)
	assert.NotErrorIs(t, err, errCause)
	assert.EqualError(t, err, "gcsim: invalid configuration: major_heap = 64MiB, want at least 350MiB")

	err = &setting.Error{Field: "los", Value: "1GiB", Want: "less", Err: errCause}
	assert.ErrorIs(t, err, errCause)
	assert.ErrorIs(t, err, setting.ErrInvalid)
}

func TestFlag(t *testing.T) {
	assert.Equal(t, "major-heap", setting.Flag("major_heap"))
	assert.Equal(t, "workers", setting.Flag("workers"))
	assert.Equal(t, "mutator.major-fill", setting.Flag("mutator.major_fill"))
}
