package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/internal/protocols"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/report"
	"github.com/gcbench/gcbench/stats"
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
	err = fmt.Errorf("%s %s: %w", flag, path, err)
	if kept, kerr := keepInTemp(path, render); kerr == nil {
		return &keptElsewhereError{err: err, kept: kept}
	}
	if binary {
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
		err = fmt.Errorf("standard output: %w", err)
		keep := func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }
		if kept, kerr := keepInTemp("report"+formatExt[f], keep); kerr == nil {
			return &keptElsewhereError{err: err, kept: kept}
		}
		return err
	}
	return nil
}

// formatExt is the file extension of each format, for a report kept in the
// temporary directory.
var formatExt = map[render.Format]string{render.Text: ".txt", render.Markdown: ".md", render.CSV: ".csv", render.JSON: ".json",
	render.Bench: ".txt"}

// keptElsewhereError is save's error when the output could not be put
// where it was asked for and was saved in the file kept instead, which its
// message names: a message the user must see even when a signal stopped
// the command.
type keptElsewhereError struct {
	err  error
	kept string
}

func (e *keptElsewhereError) Error() string {
	return fmt.Sprintf("%v; the output is saved in %s instead", e.err, e.kept)
}

func (e *keptElsewhereError) Unwrap() error { return e.err }

// keepInTemp writes render's output to a new file in the temporary
// directory, named after path's base and extension.
func keepInTemp(path string, render func(io.Writer) error) (string, error) {
	base := outfile.FitName(filepath.Base(path), len("gcbench-")+len("-")+10) // CreateTemp's random part
	ext := filepath.Ext(base)
	f, err := os.CreateTemp("", "gcbench-"+base[:len(base)-len(ext)]+"-*"+ext)
	if err != nil {
		return "", err
	}
	err = render(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name()) // ours: created just above
		return "", err
	}
	return f.Name(), nil
}

// protocolResult is the JSON document of a benchmark protocol's command:
// which command, on what host, and the protocol's report.
type protocolResult struct {
	Command string      `json:"command"`
	Host    report.Host `json:"host"`
	Report  any         `json:"report"`
}

func writeProtocolJSON(w io.Writer, command string, report any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(protocolResult{Command: command, Host: probeHost(), Report: report}); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// protocolFailure sorts a benchmark protocol's error: bad options are bad
// usage, and a failure that measured nothing ends the command. It returns
// nil when there is something to print: a whole result (err is nil) or the
// repetitions finished before a cancel (the caller prints them and then
// returns err).
func protocolFailure(err error, measured bool, what string) error {
	switch {
	case errors.Is(err, protocols.ErrInvalidOptions):
		return usagef("%v", err)
	case err != nil && !measured:
		return fmt.Errorf("running %s: %w", what, err)
	}
	return nil
}

// protocolTable is a protocol's one-table result with the host under its
// title.
func protocolTable(title string, header []string, rows [][]string) *render.Table {
	return &render.Table{Title: title, Facts: []render.Fact{{Key: "host", Value: describeHost(probeHost())}},
		Header: [][]string{header}, Rows: rows}
}

// fmtSpread shows a spread as "lo–hi" at prec decimals, or "" for an
// empty sample: the run-to-run range beside a median.
func fmtSpread(s stats.Spread, prec int) string {
	if s.N == 0 {
		return ""
	}
	return fmtFloat(s.Lo, prec) + "–" + fmtFloat(s.Hi, prec)
}

func fmtFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" { // a small negative rounded to zero reads "-0": it is 0
		return strings.TrimPrefix(s, "-")
	}
	return s
}
