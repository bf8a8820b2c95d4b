package report

import (
	"context"
	"fmt"

	"github.com/gcbench/gcbench/internal/infile"
)

// ReadFile reads the report in file name (ReadJSON) and sets its Source
// to name, so that the errors of Merge and NewScalingContext name the
// file. An error names the file too: an open's *PathError does, and a
// read's error is prefixed with name. ctx ends a wait for a FIFO's or a
// pipe's writer (internal/infile): a cancelled read returns ctx's error.
func ReadFile(ctx context.Context, name string) (*Report, error) {
	f, err := infile.OpenReader(ctx, name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	r, err := ReadJSON(f)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", name, ctx.Err())
		}
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
