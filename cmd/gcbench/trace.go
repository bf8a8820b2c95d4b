package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/infile"
	"github.com/gcbench/gcbench/trace"
)

const traceUsage = "usage: gcbench trace [flags] FILE\n\n" +
	"Summarizes a gcbench trace file (events per kind, events lost), or with\n" +
	"--perfetto OUT.json converts it to Chrome trace-event JSON.\n\nflags:\n"

// cmdTrace summarizes a trace file, or converts it to Perfetto's JSON.
// gcsim names the kinds of its traces (gcbench run --trace) and lays them
// out on tracks; other kinds keep trace's names, on their writers' tracks.
func cmdTrace(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("trace")
	perfetto := fs.String("perfetto", "", "write the trace as Chrome trace-event JSON to this file (open it in ui.perfetto.dev)")
	var format render.Format
	fs.Var(formatFlag(&format), "format", "summary format: "+strings.Join(render.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, e.stdout, traceUsage); done {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one trace FILE, got %d arguments", fs.NArg())
	}
	name := fs.Arg(0)
	outputs := []outfile.Path{{Name: "--perfetto", Path: *perfetto}}
	if *perfetto == "" { // the summary goes to standard output
		outputs = stdoutPath()
	}
	if err := checkPaths(outputs, []outfile.Path{{Name: "input", Path: name}}); err != nil {
		return err
	}
	in, err := infile.OpenReader(ctx, name)
	if err != nil {
		return err // *PathError names the file
	}
	defer in.Close()
	r, err := trace.Open(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *perfetto != "" {
		return exportPerfetto(ctx, e, r, name, *perfetto)
	}
	return summarizeTrace(e.stdout, format, name, r)
}

// summarizeTrace writes r's summary, by gcsim's kind names. Damage
// part-way is shown, marked, after what came before it (still the
// trace's), and is the error (exit status 1).
func summarizeTrace(w io.Writer, f render.Format, name string, r *trace.Reader) error {
	s, err := trace.Summarize(r)
	if err != nil && (!errors.Is(err, trace.ErrCorrupt) || s.Events == 0) {
		return fmt.Errorf("%s: %w", name, err)
	}
	sum := render.TraceSummary{File: name, Summary: s, KindName: gcsim.TraceKindName, Corrupt: err}
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if f == render.JSON {
		return joinErrors(err, writeProtocolJSON(w, "trace", sum))
	}
	return joinErrors(err, sum.Table().Write(w, f))
}

// exportPerfetto converts r into an output file, on gcsim's tracks; the
// destination is replaced only by a complete document.
func exportPerfetto(ctx context.Context, e *env, r *trace.Reader, in, out string) error {
	var readErr error
	err := outfile.WriteContext(ctx, out, e.temps, func(w io.Writer) error {
		readErr = trace.ExportChrome(w, r, gcsim.ChromeTracks{})
		return readErr
	})
	switch {
	case readErr != nil && errors.Is(err, readErr): // the input's fault, not the output's
		return fmt.Errorf("%s: %w", in, readErr)
	case err != nil:
		return fmt.Errorf("--perfetto: %w", err)
	}
	// Status goes to standard error: the output may be standard output.
	read, lost := r.Totals()
	fmt.Fprintf(e.stderr, "wrote %s: %d events (%d lost in the trace); open it in ui.perfetto.dev or chrome://tracing\n", out, read, lost)
	if cut := r.Truncation(); cut != nil {
		fmt.Fprintf(e.stderr, "%s: %v: the export holds its complete blocks\n", in, cut)
	}
	return nil
}
