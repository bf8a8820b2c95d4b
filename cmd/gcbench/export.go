package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/spf13/pflag"
)

// The outputs that other tools read, beside --out and --plot: --html (one
// self-contained page for a browser), --hdr-log (HdrHistogram interval
// logs for HistogramLogAnalyzer and the like), and, through --format
// bench, Go benchmark format for benchstat. Like every output they are
// checked before the work and written atomically.

// exportFlags are run's and report's --html, --hdr-log and --hdr-interval.
type exportFlags struct {
	html        string
	hdrLog      string
	hdrInterval int
	// sweep is set (forSweep) when the report is a sweep's scaling table,
	// which has no anatomy to put beside a CSV --out.
	sweep bool
}

func (x *exportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&x.html, "html", "", "also write one self-contained HTML report to `FILE`: the tables, the configuration and host, "+
		"and the plots as inline SVG (it loads nothing: it opens offline and can be sent as one file)")
	fs.StringVar(&x.hdrLog, "hdr-log", "", "also write the pauses as an HdrHistogram interval log to `FILE` "+
		"(HistogramLogAnalyzer, jHiccup's tools): one histogram tagged with the mode per --hdr-interval collections, "+
		"values in nanoseconds, 3 significant digits")
	fs.Var(flagvalue.NewInt(&x.hdrInterval, render.DefaultHDRInterval, 1, gcsim.MaxCollections), "hdr-interval",
		"collections of a mode per interval histogram of --hdr-log")
}

// paths are the files these flags name.
func (x *exportFlags) paths() []outfile.Path {
	return []outfile.Path{{Name: "--html", Path: x.html}, {Name: "--hdr-log", Path: x.hdrLog}}
}

// write writes r's HTML report and HdrHistogram log, each whatever
// happened to the other.
func (x *exportFlags) write(ctx context.Context, e *env, r *report.Report) error {
	var err error
	if x.html != "" {
		err = e.save(ctx, "--html", x.html, true, func(w io.Writer) error { return render.WriteHTML(w, r) })
	}
	if x.hdrLog != "" {
		err = joinErrors(err, e.save(ctx, "--hdr-log", x.hdrLog, true, func(w io.Writer) error { return render.WriteHDRLog(w, r, x.hdrInterval) }))
	}
	return err
}

// writeScaling writes a sweep's HTML report: the scaling table and plots,
// and each point's report, linked to its file.
func (x *exportFlags) writeScaling(ctx context.Context, e *env, s *report.Scaling, points []*report.Report) error {
	if x.html == "" {
		return nil
	}
	return e.save(ctx, "--html", x.html, true, func(w io.Writer) error { return render.WriteScalingHTML(w, s, points, x.linkFromHTML) })
}

// linkFromHTML is the link from the HTML report to a point's file: its
// path relative to the report's directory, so that the two can move
// together; "" if there is none.
func (x *exportFlags) linkFromHTML(source string) string {
	dir, err1 := filepath.Abs(filepath.Dir(x.html))
	abs, err2 := filepath.Abs(source)
	rel, err3 := filepath.Rel(dir, abs)
	if errors.Join(err1, err2, err3) != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// forSweep marks the outputs as a sweep's report and refuses what it
// cannot give: its points are many runs, each with its own pauses, not
// one run's modes.
func (x *exportFlags) forSweep() error {
	x.sweep = true
	if x.hdrLog != "" {
		return usagef("--hdr-log writes a run's pauses (report FILE.json), not a sweep's points (report DIR)")
	}
	return nil
}

// anatomyPath is where the CSV of the pause anatomy goes for --out out:
// beside it, "r.csv" giving "r.anatomy.csv". It is "" when out is not a
// file of its own to put one beside (outfile.OwnFile: a descriptor such as
// /dev/stdout or /dev/fd/N, even one open on a file, a device, a FIFO):
// there, as on standard output, the pause table goes alone.
func anatomyPath(out string) string {
	if !outfile.OwnFile(out) {
		return ""
	}
	if ext := filepath.Ext(out); strings.EqualFold(ext, ".csv") {
		out = out[:len(out)-len(ext)]
	}
	return out + ".anatomy.csv"
}
