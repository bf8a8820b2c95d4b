package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/trace"
)

// cmdTrace summarizes a trace file, or converts it to Perfetto's JSON.
// gcsim names the kinds of its traces (gcbench run --trace) and lays them
// out on tracks; other kinds keep trace's names, on their writers' tracks.
func cmdTrace(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("trace")
	perfetto := fs.String("perfetto", "", "write the trace as Chrome trace-event JSON to this file (open it in ui.perfetto.dev)")
	var format render.Format
	fs.Var(formatValue{&format}, "format", "summary format: "+strings.Join(render.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, e.stdout, "usage: gcbench trace [flags] FILE\n\n"+
		"Summarizes a gcbench trace file (events per kind, events lost), or with\n"+
		"--perfetto OUT.json converts it to Chrome trace-event JSON.\n\nflags:\n"); done {
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
	f, err := openContext(ctx, name)
	if err != nil {
		return err // *PathError names the file
	}
	defer f.Close()
	// A read from a pipe or FIFO can wait for its writer forever; closing
	// the file ends it (the runtime's poller returns the read at once).
	defer context.AfterFunc(ctx, func() { f.Close() })()
	r, err := trace.Open(ctxReader{ctx, f})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *perfetto != "" {
		return exportPerfetto(ctx, e, r, name, *perfetto)
	}
	s, err := trace.Summarize(r)
	switch {
	case errors.Is(err, trace.ErrCorrupt) && s.Events > 0:
		// Damage part-way: what came before it is still the trace's, and
		// is shown, marked, before the error (exit status 1).
		return joinErrors(fmt.Errorf("%s: %w", name, err), writeTraceSummary(e.stdout, format, name, s, err))
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	}
	return writeTraceSummary(e.stdout, format, name, s, nil)
}

// ctxReader stops a long read when ctx is cancelled: every Read checks it.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && c.ctx.Err() != nil { // the read was ended by the Close above
		return n, c.ctx.Err()
	}
	return n, err
}

// openContext opens name for reading, or returns ctx's error if ctx ends
// first: opening a FIFO waits for a writer to open it.
func openContext(ctx context.Context, name string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		go func() { // the open may still succeed: close what it opens
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
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
	kinds := make([]trace.Kind, 0, len(s.ByKind))
	for k := range s.ByKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	if f == render.JSON {
		byKind := map[string]uint64{}
		for _, k := range kinds {
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
		return writeProtocolJSON(w, "trace", doc)
	}
	var rows [][]string
	for _, k := range kinds {
		rows = append(rows, []string{gcsim.TraceKindName(k), fmt.Sprint(s.ByKind[k])})
	}
	rows = append(rows, []string{"total read", fmt.Sprint(s.Events)}, []string{"lost", fmt.Sprint(s.Lost)})
	pct := 0.0
	if s.Events > 0 || s.Lost > 0 {
		pct = 100 * float64(s.Lost) / (float64(s.Events) + float64(s.Lost))
	}
	title := fmt.Sprintf("%s: trace format v%d, session started %s, %d writers, events span %v, %.2f%% lost",
		name, s.Header.Version, s.Header.Start.UTC().Format("2006-01-02 15:04:05Z"), len(s.Writers), s.Last-s.First, pct)
	t := &render.Table{Title: title, Header: [][]string{{"kind", "events"}}, Rows: rows}
	if s.Truncated {
		t.Facts = append(t.Facts, render.Fact{Key: "TRUNCATED", Value: truncationNote(s.TruncatedAt), Warning: true})
	}
	if corrupt != nil {
		t.Facts = append(t.Facts, render.Fact{Key: "CORRUPT", Value: corrupt.Error() +
			"; the counts cover the events before the damage, and lost is a lower bound", Warning: true})
	}
	return t.Write(w, f)
}

// truncationNote says what the counts of a trace cut at byte at mean.
func truncationNote(at int64) string {
	return fmt.Sprintf("the trace ends at byte %d without its end block (its session did not finish); "+
		"the counts cover its complete blocks, and lost is a lower bound", at)
}
