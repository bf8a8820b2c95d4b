package render

import "errors"

// ErrInvalidInput is wrapped by the errors of this package that refuse
// what they were asked to render: an unknown format, a table without a
// rendering in it, a report without what the rendering needs.
var ErrInvalidInput = errors.New("render: invalid input")
