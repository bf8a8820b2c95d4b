package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/spf13/pflag"
)

const reportUsage = `usage: gcbench report [flags] FILE.json...
       gcbench report [flags] DIR...

Re-renders results saved by 'gcbench run --format json'. With several files
(runs of the same configuration, say from several machines) it merges them
into one report with a column group per host (the same host given twice
is labelled host #1, host #2).

With --runs, the files are repeated runs of one configuration on one host
(CONTRIBUTING: at least three runs of a command; runs of other
configurations or hosts are refused): it prints a runs summary, a line
per comparison ("batch vs perjob over 3 runs: median 4.2% shorter (runs
3.1–5.0%, 95% bootstrap interval 2.7–5.8%)") and a row per run with its
TrimMean 10% improvement and interval, then the median, the range and a
seeded bootstrap interval of the median (each run's collections
resampled within the run), and then the median run's full report (text
or markdown; json is the summary alone). Given directories, --runs takes
each for one sweep of the same grid and gives per point each sweep's
TrimMean 10% ratio, their median and range. Without --runs, files are
merged, never summarized.

Given directories of sweep points ('gcbench sweep --dir DIR', one or more
directories, say one per machine of a sharded sweep), it prints the
scaling table instead: per point, the ratio of the last mode to the one
before (batch/perjob) with its confidence interval and p-value, and the
futile wake-ups and futex calls. --plot then draws the ratio, the futile
wake-ups and the futex calls against the workers; --html writes the table,
those plots and each point's own report into one page; --format bench
prints every point's pauses with its grid values in the benchmark names.

flags:
`

// cmdReport is `gcbench report`.
func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("report")
	fs.SortFlags = false
	var out outputFlags
	out.register(fs)
	runs := fs.Bool("runs", false, "the files are repeated runs of one configuration on one host: print a runs summary "+
		"(each run's improvement, their median, range and bootstrap interval), then the median run's report; "+
		"formats text, markdown and json")
	if done, err := parseFlags(fs, args, e.stdout, reportUsage); done {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("no files given (usage: gcbench report [flags] FILE.json...)")
	}
	if err := out.check(fs); err != nil {
		return err
	}
	names, sweep, err := reportInputs(fs.Args())
	if err != nil {
		return err
	}
	if sweep {
		if err := out.exports.forSweep(); err != nil {
			return err
		}
	}
	if err := checkPaths(out.paths(), pathsOf("input", names)); err != nil {
		return err
	}
	if *runs {
		if err := checkRunsFlags(&out); err != nil {
			return err
		}
		if sweep {
			return writeRunsScaling(ctx, e, &out, fs.Args())
		}
	}
	reports, err := report.ReadFiles(ctx, names)
	if err != nil {
		return err
	}
	if *runs {
		s, err := report.NewRunsSummary(ctx, reports)
		if err != nil {
			return err
		}
		return out.writeOut(ctx, e, func(w io.Writer) error { return render.WriteRuns(w, s, out.format) })
	}
	if sweep {
		return writeScaling(ctx, e, &out, reports)
	}
	merged, err := report.Merge(reports...)
	if err != nil {
		return err
	}
	return out.write(ctx, e, merged)
}

// checkRunsFlags refuses what --runs does not do: the formats other than
// text, markdown and json, plots and exports.
func checkRunsFlags(out *outputFlags) error {
	switch {
	case out.format != render.Text && out.format != render.Markdown && out.format != render.JSON:
		return usagef("--runs prints text, markdown or json, not %v", out.format)
	case out.plot != "" || out.exports.html != "" || out.exports.hdrLog != "":
		return usagef("--runs draws no --plot and writes no --html or --hdr-log: give report the median run's file for those")
	}
	return nil
}

// writeRunsScaling is report --runs of directories, each one sweep of
// one grid: per point, each sweep's ratio of the last mode to the one
// before, their median and range.
func writeRunsScaling(ctx context.Context, e *env, out *outputFlags, dirs []string) error {
	var sweeps [][]*report.Report
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() {
			return usagef("--runs takes run files or directories of sweep points, not both (%s is not a directory)", d)
		}
		names, err := jsonFiles(d)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return usagef("%s holds no .json files", d)
		}
		points, err := report.ReadFiles(ctx, names)
		if err != nil {
			return err
		}
		sweeps = append(sweeps, points)
	}
	modes := sweeps[0][0].Runs[0].ModeNames()
	if len(modes) < 2 {
		return fmt.Errorf("%w: a scaling table compares two modes; the points have %v", report.ErrInvalidInput, modes)
	}
	s, err := report.NewRunsScaling(ctx, sweeps, dirs, modes[len(modes)-2], modes[len(modes)-1])
	if err != nil {
		return err
	}
	return out.writeOut(ctx, e, func(w io.Writer) error { return render.WriteRunsScaling(w, s, out.format) })
}

// reportInputs expands the arguments: a directory stands for the *.json
// files in it (a sweep's points), and makes the report a scaling table.
func reportInputs(args []string) (names []string, sweep bool, err error) {
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			names = append(names, a) // a missing file is reported when read
			continue
		}
		sweep = true
		found, err := jsonFiles(a)
		if err != nil {
			return nil, false, err
		}
		if len(found) == 0 {
			return nil, false, usagef("%s holds no .json files", a)
		}
		names = append(names, found...)
	}
	return names, sweep, nil
}

// jsonFiles lists the .json files in dir, by name. It reads the directory
// itself (not a glob of dir/*.json, which would take a directory named
// "g[1]" for a pattern and read g1's files, and fail on "h[x").
func jsonFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err // *PathError names the directory
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// writeScaling renders a sweep's points as the scaling table: the last
// mode against the one before it (batch against perjob), per point.
func writeScaling(ctx context.Context, e *env, out *outputFlags, reports []*report.Report) error {
	modes := reports[0].Runs[0].ModeNames()
	if len(modes) < 2 {
		return fmt.Errorf("%w: a scaling table compares two modes; the points have %v", report.ErrInvalidInput, modes)
	}
	s, err := report.NewScalingContext(ctx, reports, modes[len(modes)-2], modes[len(modes)-1], gcsim.ReportScalingCounters())
	if err != nil {
		return err
	}
	draw := func(w io.Writer) error { return render.WriteScaling(w, s, out.format) }
	if out.format == render.Bench { // the points' samples, their grid values in the names
		draw = func(w io.Writer) error { return render.WriteBench(w, reports...) }
	}
	err = joinErrors(out.writeOut(ctx, e, draw),
		out.writePlot(ctx, e, func(w io.Writer, f string) error { return render.WriteScalingPlot(w, s, f) }))
	return joinErrors(err, out.exports.writeScaling(ctx, e, s, reports))
}

// outputFlags are the flags that say where a report goes: --format, --out
// and --plot, and the exports (--html, --hdr-log) (shared by run and
// report).
type outputFlags struct {
	format  render.Format
	out     string
	plot    string
	exports exportFlags
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.Var(reportFormatFlag(&o.format), "format",
		"output `format`: text, markdown, csv, json or bench (json keeps every sample; 'gcbench report' reads it back; "+
			"csv is the pause table, and with --out FILE.csv the anatomy goes to FILE.anatomy.csv; "+
			"bench is Go benchmark format, a line per collection, for benchstat); "+
			"unless given, --out's extension (.json, .csv, .md) picks it")
	fs.StringVarP(&o.out, "out", "o", "", "write the report to `FILE` instead of standard output")
	fs.StringVar(&o.plot, "plot", "", "also draw histograms, box plots and CDFs of the pauses into `FILE.png` or FILE.svg")
	o.exports.register(fs)
}

// check validates the flags after parsing, before any work: the format,
// the plot's extension, and (with checkPaths) the output paths.
func (o *outputFlags) check(fs *pflag.FlagSet) error {
	if o.out != "" && !fs.Changed("format") {
		o.format = render.FormatOfFile(o.out)
	}
	if o.plot != "" && render.PlotFormatOfFile(o.plot) == "" {
		return usagef("invalid argument %q for \"--plot\" flag: the file name must end in .png or .svg", o.plot)
	}
	return nil
}

// paths are the output files these flags name, and standard output when
// the report goes there (no --out) and it is a file or a pipe, so that no
// other output is written into the file or pipe the report goes to.
func (o *outputFlags) paths() []outfile.Path {
	out := stdoutPath()
	if o.out != "" {
		out = []outfile.Path{{Name: "--out", Path: o.out}}
	}
	if o.format == render.CSV && !o.exports.sweep {
		out = append(out, outfile.Path{Name: "--out's anatomy", Path: anatomyPath(o.out)})
	}
	return append(append(out, outfile.Path{Name: "--plot", Path: o.plot}), o.exports.paths()...)
}

// stdoutPath is standard output as an output to check, if it takes bytes
// (see stdoutTakesBytes): a command that prints there must not also write
// into, or read from, the file or pipe it is open on.
func stdoutPath() []outfile.Path {
	if !stdoutTakesBytes() {
		return nil
	}
	return []outfile.Path{{Name: "standard output", Path: "/dev/stdout"}}
}

// stdoutTakesBytes reports whether standard output is open on something
// other outputs could share: a file, a pipe or a socket, not a terminal or
// a device such as /dev/null, where sharing loses nothing.
func stdoutTakesBytes() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice == 0
}

// write renders r to --out (or stdout) and draws --plot. Each is written
// whatever happened to the other; a failure keeps the output (see save).
func (o *outputFlags) write(ctx context.Context, e *env, r *report.Report) error {
	err := o.writeOut(ctx, e, func(w io.Writer) error { return render.Write(w, r, o.format) })
	if path := anatomyPath(o.out); o.format == render.CSV && path != "" && r.HasAnatomy() { // CSV: one table per file
		err = joinErrors(err, e.save(ctx, "--out's anatomy", path, false, func(w io.Writer) error { return render.WriteAnatomyCSV(w, r) }))
	}
	err = joinErrors(err, o.writePlot(ctx, e, func(w io.Writer, f string) error { return render.WritePlot(w, r, f) }))
	return joinErrors(err, o.exports.write(ctx, e, r))
}

// writeOut writes what draw renders to --out, or to standard output.
func (o *outputFlags) writeOut(ctx context.Context, e *env, draw func(io.Writer) error) error {
	if o.out == "" {
		return e.print(o.format, draw)
	}
	return e.save(ctx, "--out", o.out, false, draw)
}

// writePlot writes what plot draws, in --plot's format, to --plot if it
// is set.
func (o *outputFlags) writePlot(ctx context.Context, e *env, plot func(w io.Writer, format string) error) error {
	if o.plot == "" {
		return nil
	}
	return e.save(ctx, "--plot", o.plot, true, func(w io.Writer) error { return plot(w, render.PlotFormatOfFile(o.plot)) })
}

// joinErrors joins errors on one line, as the CLI prints them; nil ones
// are dropped.
func joinErrors(errs ...error) error {
	var out error
	for _, err := range errs {
		switch {
		case err == nil:
		case out == nil:
			out = err
		default:
			out = fmt.Errorf("%w; %w", out, err)
		}
	}
	return out
}
