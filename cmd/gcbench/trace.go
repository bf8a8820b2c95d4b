package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/infile"
	"github.com/gcbench/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/render"
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

// summarizeTrace writes r's summary. Damage part-way is shown, marked,
// after what came before it (still the trace's), and is the error (exit
// status 1).
func summarizeTrace(w io.Writer, f render.Format, name string, r *trace.Reader) error {
	s, err := trace.Summarize(r)
	switch {
	case errors.Is(err, trace.ErrCorrupt) && s.Events > 0:
		return joinErrors(fmt.Errorf("%s: %w", name, err), writeTraceSummary(w, f, name, s, err))
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	return writeTraceSummary(w, f, name, s, nil)
}

// exportPerfetto converts r into an output file, on gcsim's tracks; the
// destination is replaced only by a complete document.
func exportPerfetto(ctx context.Context, e *env, r *trace.Reader, in, out string) error {
	var readErr error
	err := outfile.WriteContext(ctx, out, e.temps, func(w io.Writer) error {
		if err := trace.ExportChrome(w, r, gcsim.ChromeTracks{}); err != nil {
			readErr = fmt.Errorf("%s: %w", in, err)
			return readErr
		}
		return nil
	})
	switch {
	case readErr != nil && errors.Is(err, readErr): // the input's fault, not the output's
		return readErr
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

// writeTraceSummary writes a trace's events per kind, by gcsim's kind
// names, and what was lost, in format f; corrupt, if not nil, is the
// damage the reading stopped at.
func writeTraceSummary(w io.Writer, f render.Format, name string, s trace.Summary, corrupt error) error {
	if f == render.JSON {
		return writeProtocolJSON(w, "trace", traceSummaryDoc(name, s, corrupt))
	}
	return traceSummaryTable(name, s, corrupt).Write(w, f)
}

// traceSummaryDoc is a summary's JSON document.
func traceSummaryDoc(name string, s trace.Summary, corrupt error) map[string]any {
	byKind := map[string]uint64{}
	for _, k := range s.Kinds() {
		byKind[gcsim.TraceKindName(k)] = s.ByKind[k]
	}
	doc := map[string]any{
		"file": name, "version": s.Header.Version, "start": s.Header.Start,
		"events": s.Events, "lost": s.Lost, "by_kind": byKind, "writers": s.Writers,
		"first_ns": s.First.Nanoseconds(), "last_ns": s.Last.Nanoseconds(), "payload_bytes": s.Payload,
		"truncated": s.Truncated, "truncated_at": s.TruncatedAt,
	}
	if corrupt != nil {
		doc["corrupt"] = corrupt.Error()
	}
	return doc
}

// traceSummaryTable is a summary as a table: a row per kind, then the
// totals; its facts say when the counts are a lower bound.
func traceSummaryTable(name string, s trace.Summary, corrupt error) *render.Table {
	var rows [][]string
	for _, k := range s.Kinds() {
		rows = append(rows, []string{gcsim.TraceKindName(k), fmt.Sprint(s.ByKind[k])})
	}
	rows = append(rows, []string{"total read", fmt.Sprint(s.Events)}, []string{"lost", fmt.Sprint(s.Lost)})
	title := fmt.Sprintf("%s: trace format v%d, session started %s, %d writers, events span %v, %.2f%% lost",
		name, s.Header.Version, s.Header.Start.UTC().Format("2006-01-02 15:04:05Z"), len(s.Writers), s.Last-s.First, s.LostShare())
	t := &render.Table{Title: title, Header: [][]string{{"kind", "events"}}, Rows: rows}
	if s.Truncated {
		t.Facts = append(t.Facts, render.Fact{Key: "TRUNCATED", Value: truncationNote(s.TruncatedAt), Warning: true})
	}
	if corrupt != nil {
		t.Facts = append(t.Facts, render.Fact{Key: "CORRUPT", Value: corrupt.Error() +
			"; the counts cover the events before the damage, and lost is a lower bound", Warning: true})
	}
	return t
}

// truncationNote says what the counts of a trace cut at byte at mean.
func truncationNote(at int64) string {
	return fmt.Sprintf("the trace ends at byte %d without its end block (its session did not finish); "+
		"the counts cover its complete blocks, and lost is a lower bound", at)
}
