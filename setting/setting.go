// Package setting is what gcbench's configurations (heap.Config,
// gcsim.Config and gcsim.CompareOptions) share about their settings: the
// one error that refuses a setting, and the rule that names a setting the
// same way in a Go error, a saved report and on the command line.
//
// A setting's key is its name in the configuration's JSON and in reports:
// lower case with underscores ("major_heap", "workers"), a nested
// setting's path joined by dots ("mutator.major_fill"). A command-line
// flag that sets it is the key with '-' for '_' (--major-heap), so a front
// end finds the flag to blame with Flag, not with a table of its own.
package setting

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every *Error: a setting that cannot be used.
var ErrInvalid = errors.New("invalid configuration")

// ErrUnknown is wrapped, beside ErrInvalid, by the *Error about a key that
// names no setting (a typo in a saved configuration, or a setting from a
// newer gcbench).
var ErrUnknown = errors.New("no such setting")

// Error names a setting that cannot be used, the value it was given and
// what would be accepted. heap and gcsim return it for every setting they
// refuse; find it with errors.As, and errors.Is(err, ErrInvalid) holds.
type Error struct {
	// Field is the setting's key ("major_heap", "mutator.major_fill",
	// "gcs"). When a combination of settings fails, Field is the one to
	// change, and Want names the others by their keys.
	Field string
	// Value is the value as given: sizes as bytesize.Format writes them
	// ("64MiB", "1KB"), enumerations by name, counts and fractions as
	// numbers.
	Value string
	// Want says what would be accepted, with the bound as a number in the
	// setting's units ("1..4096", "at least 364MiB for 4096 workers, …").
	Want string
	// Err, if not nil, is a more specific cause that errors.Is also finds
	// (heap.ErrTooLarge for a heap that does not fit the machine).
	Err error
}

// Error reads "invalid configuration: key = value, want Want".
func (e *Error) Error() string {
	return fmt.Sprintf("%v: %s = %s, want %s", ErrInvalid, e.Field, e.Value, e.Want)
}

// Unwrap returns ErrInvalid and, if set, Err.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// Flag is the name of the command-line flag that sets the setting key,
// without dashes ("major-heap" for "major_heap"), by gcbench's rule; a
// front end that has no such flag says so by the key.
func Flag(key string) string { return strings.ReplaceAll(key, "_", "-") }
