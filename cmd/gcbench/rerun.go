package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/spf13/pflag"
)

// `gcbench run --config FILE.json` reruns the experiment a report saved
// (its gcsim.Experiment, in the report's Settings): every setting the file
// holds becomes the default of the flag that sets it, so a flag given
// beside --config overrides that one setting and nothing else, and
// settings no flag sets (the mutator's) come from the file alone.

// runDefaults returns the flags' defaults: the file --config names in
// args, if any, else the seed experiment.
func runDefaults(ctx context.Context, args []string) (gcsim.Experiment, string, error) {
	name, given := configArg(args)
	switch {
	case given && name == "":
		return gcsim.Experiment{}, "", usagef("--config: an empty file name (to run the seed experiment, leave --config out)")
	case name == "":
		return gcsim.DefaultExperiment(), "", nil
	}
	e, err := loadExperiment(ctx, name)
	return e, name, err
}

// mutexDefault is --mutex's default: the configuration's kind on the
// native backend, else mono's (PI), which a run with --backend native
// alongside would use.
func mutexDefault(c gcsim.Config) workerpool.MutexKind {
	if c.Backend.HasMutexKinds() {
		return c.Mutex
	}
	return workerpool.MutexPI
}

// configArg finds --config's value in args without the other flags: a
// parse that knows only --config and lets every other flag by, and
// whether --config was given (with an empty value, --config=, it names no
// file, which is not the seed experiment). A mistake in args is left for
// the full parse to report.
func configArg(args []string) (name string, given bool) {
	fs := pflag.NewFlagSet("config", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	p := fs.String("config", "", "")
	_ = fs.Parse(args)
	return *p, fs.Changed("config")
}

// loadExperiment reads the experiment saved in the report in file name,
// strictly (gcsim.ReadExperiment): an unknown key or a bad value is an
// error naming the file and the key, and a report saved before typed
// settings says how to make one.
func loadExperiment(ctx context.Context, name string) (gcsim.Experiment, error) {
	r, err := report.ReadFile(ctx, name)
	switch {
	case err != nil && ctx.Err() != nil:
		// A stop while waiting for a FIFO's writer, say: main names the
		// signal; this says what it stopped.
		return gcsim.Experiment{}, fmt.Errorf("--config %s was not read, and nothing ran", name)
	case err != nil:
		return gcsim.Experiment{}, usagef("--config %v", err) // names the file
	}
	e, err := gcsim.ReadExperiment(r)
	switch {
	case errors.Is(err, gcsim.ErrNoSettings):
		return gcsim.Experiment{}, usagef("--config %s: its settings are missing or null, so there is no experiment to "+
			"rerun (a report of schema %s): regenerate it with this gcbench (gcbench run --format json, with the "+
			"settings its configuration lists)", name, r.Schema)
	case err != nil:
		return gcsim.Experiment{}, usagef("--config %s: %v", name, err)
	}
	return e, nil
}
