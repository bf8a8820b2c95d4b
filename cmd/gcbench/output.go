package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
)

// Output paths are checked before any work (checkPaths) and written
// atomically at the end (save); a write that fails anyway still keeps the
// result, in a file of the temporary directory that the error names.

// checkPaths returns a usage error naming the flag if an output cannot be
// written, or if two of the paths are one file.
func checkPaths(outputs, inputs []outfile.Path) error {
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := outfile.Check(o.Path); err != nil {
			return usagef("%s %s: %v", o.Name, o.Path, err)
		}
	}
	return checkDistinct(outputs, inputs)
}

// pathsOf names each of paths for outfile's checks.
func pathsOf(name string, paths []string) []outfile.Path {
	out := make([]outfile.Path, len(paths))
	for i, p := range paths {
		out[i] = outfile.Path{Name: name, Path: p}
	}
	return out
}

// checkDistinct is checkPaths' second half: a usage error if two of the
// paths are one file.
func checkDistinct(outputs, inputs []outfile.Path) error {
	if err := outfile.Distinct(outputs, inputs); err != nil {
		if same := (*outfile.SameFileError)(nil); errors.As(err, &same) && same.Inputs {
			return usagef("%v: give each input once", err)
		}
		return usagef("%v: give each output its own file", err)
	}
	return nil
}

// save writes what render produces to path, atomically. If that fails,
// it saves the same bytes in the temporary directory and names that file
// in the error, or failing that (text formats only) prints them on
// standard output: a result is never lost for want of a place to put it.
//
// It waits for a FIFO's reader until ctx ends: a run stopped by a signal
// then keeps its report in the temporary directory.
func (e *env) save(ctx context.Context, flag, path string, binary bool, render func(io.Writer) error) error {
	write := func(path string, set *outfile.Set, render func(io.Writer) error) error {
		return outfile.WriteContext(ctx, path, set, render)
	}
	return e.saveWith(write, flag, path, binary, render)
}

// saveNew is save for a file that must not be there yet, such as a sweep's
// point: one that is there, or appears meanwhile (another sweep into the
// same directory), is left as it is, and the error wraps fs.ErrExist and
// names where the new bytes were kept instead.
func (e *env) saveNew(flag, path string, render func(io.Writer) error) error {
	return e.saveWith(outfile.WriteNew, flag, path, true, render)
}

func (e *env) saveWith(write func(string, *outfile.Set, func(io.Writer) error) error, flag, path string, binary bool, render func(io.Writer) error) error {
	err := write(path, e.temps, render)
	if err == nil {
		return nil
	}
	err = outfile.KeepAfter(fmt.Errorf("%s %s: %w", flag, path, err), "gcbench", path, render)
	if binary || errors.As(err, new(*outfile.KeptError)) {
		return err
	}
	fmt.Fprintf(e.stderr, "gcbench: %v; printing the output instead\n", err)
	if rerr := render(e.stdout); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// print writes what render produces to standard output; if that write
// fails (a full disk behind a redirect, a closed pipe), it keeps the bytes
// in the temporary directory and names that file in the error, as save
// does for a file: a result is not lost after the work for want of a
// place to put it.
func (e *env) print(f render.Format, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if _, err := e.stdout.Write(b.Bytes()); err != nil {
		keep := func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }
		return outfile.KeepAfter(fmt.Errorf("standard output: %w", err), "gcbench", "report"+f.Ext(), keep)
	}
	return nil
}
