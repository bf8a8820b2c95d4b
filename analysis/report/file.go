package report

import (
	"context"
	"errors"
	"fmt"

	"github.com/gcbench/gcbench/internal/infile"
)

// MaxFileSize bounds the report files ReadFile reads: hundreds of times
// a default run's report (a few MiB for 1500 collections per mode), far
// less than reading a mistaken multi-GiB file whole would cost.
const MaxFileSize = 256 << 20

// ReadFile reads the report in file name (ReadJSON) and sets its Source
// to name, so that the errors of Merge and NewScalingContext name the
// file. An error names the file too: an open's *PathError does, and a
// read's error is prefixed with name. ctx ends a wait for a FIFO's or a
// pipe's writer (internal/infile): a cancelled read returns ctx's error.
// A file larger than MaxFileSize is refused before it is read (a stream,
// once it passes that size), with an *infile.TooLargeError.
func ReadFile(ctx context.Context, name string) (*Report, error) {
	f, err := infile.OpenLimited(ctx, name, MaxFileSize)
	if err != nil {
		return nil, err // *PathError, or infile's ErrTooLarge, names the file
	}
	defer f.Close()
	r, err := ReadJSON(f)
	var tooLarge *infile.TooLargeError
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	case errors.As(err, &tooLarge):
		return nil, tooLarge // it names the file
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.Source = name
	return r, nil
}

// ReadFiles reads the reports in files names, in order (ReadFile). It
// stops at the first error, or when ctx ends between two files, returning
// ctx's cause.
func ReadFiles(ctx context.Context, names []string) ([]*Report, error) {
	reports := make([]*Report, 0, len(names))
	for _, name := range names {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		r, err := ReadFile(ctx, name)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}
