package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gcbench/gcbench/analysis"
	"github.com/spf13/pflag"
)

const reportUsage = `usage: gcbench report [flags] FILE.json...

Re-renders results saved by 'gcbench run --format json'. With several files
(runs of the same configuration, say from several machines) it merges them
into one report with a column group per host.

flags:
`

// cmdReport is `gcbench report`.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	fs.SortFlags = false
	var out outputFlags
	out.register(fs)
	if done, err := parseFlags(fs, args, stdout, reportUsage); done {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("no files given (usage: gcbench report [flags] FILE.json...)")
	}
	if err := out.check(fs); err != nil {
		return err
	}
	reports := make([]*analysis.Report, 0, fs.NArg())
	for _, name := range fs.Args() {
		r, err := readReport(name)
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	merged, err := analysis.Merge(reports...)
	if err != nil {
		return err
	}
	return out.write(merged, stdout)
}

func readReport(name string) (*analysis.Report, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	r, err := analysis.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// outputFlags are the flags that say where a report goes: --format, --out
// and --plot (shared by run and report).
type outputFlags struct {
	format analysis.Format
	out    string
	plot   string
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.Var(formatValue{&o.format}, "format",
		"output `format`: text, markdown, csv or json (json keeps every sample; 'gcbench report' reads it back); "+
			"unless given, --out's extension (.json, .csv, .md) picks it")
	fs.StringVarP(&o.out, "out", "o", "", "write the report to `FILE` instead of standard output")
	fs.StringVar(&o.plot, "plot", "", "also draw histograms, box plots and CDFs of the pauses into `FILE.png` or FILE.svg")
}

// check validates the flags after parsing; a bad --plot extension is a
// usage error caught before any work is done.
func (o *outputFlags) check(fs *pflag.FlagSet) error {
	if o.out != "" && !fs.Changed("format") {
		o.format = formatForFile(o.out)
	}
	if o.plot != "" {
		switch ext := formatForPlot(o.plot); ext {
		case "png", "svg":
		default:
			return usagef("invalid argument %q for \"--plot\" flag: the file name must end in .png or .svg", o.plot)
		}
	}
	return nil
}

// write renders r to --out (or stdout) and draws --plot.
func (o *outputFlags) write(r *analysis.Report, stdout io.Writer) (err error) {
	if o.plot != "" {
		if err := r.SavePlot(o.plot); err != nil {
			return err
		}
	}
	if o.out == "" {
		return r.Render(stdout, o.format)
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return r.Render(f, o.format)
}
