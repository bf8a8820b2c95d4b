// Command gcbench measures what job dispatch costs a parallel garbage
// collector's pause, and reruns the benchmark protocols of the systems
// gcbench learns from. It is a thin layer over the library packages: it
// parses flags, builds configurations, runs and renders.
//
// Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage, and
// 128 + the signal's number when SIGINT, SIGTERM or SIGHUP stopped it.
// Errors are one line on stderr; a Go panic is never shown to the user.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/gcbench/gcbench/internal/outfile"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"
)

// A command is one gcbench subcommand. run receives the arguments after the
// subcommand's name; it returns a usage error (see usagef) for bad input.
type command struct {
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// env is what a command runs with: where it prints, and the temporary
// files of its outputs in progress (removed if a second signal ends the
// process at once).
type env struct {
	stdout, stderr io.Writer
	temps          *outfile.Set
}

// commands is the subcommand table. "run" is also what a bare `gcbench`
// (or `gcbench --flag…`) runs.
var commands = map[string]command{
	"run":          {summary: "compare minor-collection pauses across dispatch modes (the default command)", run: cmdRun},
	"sweep":        {summary: "run over a grid of workers, wake policies, backends and heap sizes, a JSON file per point (resumable, shardable)", run: cmdSweep},
	"predict":      {summary: "predict perjob, batch and startbatch pauses on more cores, with a model checked first against sweep points (--dir)", run: cmdPredict},
	"report":       {summary: "re-render or merge saved JSON results (FILE.json...)", run: cmdReport},
	"readylist":    {summary: "stress-epoll protocol: lock-free MPSC list vs mutex list, events/ms", run: cmdReadylist},
	"pool":         {summary: "DedicatedThreadPool protocols: pool throughput and latency vs a goroutine per item", run: cmdPool},
	"trace":        {summary: "summarize a trace file (events per kind, lost) or convert it: --perfetto OUT.json", run: cmdTrace},
	"trace-stress": {summary: "EventPipe stress protocol: lockless vs locked buffer reservation", run: cmdTraceStress},
}

// errUsage marks errors caused by what the user typed: exit status 2.
var errUsage = errors.New("usage")

type usageError struct{ msg string }

func (e usageError) Error() string        { return e.msg }
func (e usageError) Is(target error) bool { return target == errUsage }

// usagef returns an error that makes gcbench exit with status 2.
func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func main() {
	e := &env{stdout: os.Stdout, stderr: os.Stderr, temps: new(outfile.Set)}
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	go func() {
		// The first signal asks every phase to stop and keep what it
		// measured; a second one means now.
		first := <-sigs
		cancel(interrupted{first.(syscall.Signal)})
		second := <-sigs
		e.temps.RemoveTemps()
		fmt.Fprintf(e.stderr, "gcbench: %v, a second signal: exiting at once, temporary files removed\n", interrupted{second.(syscall.Signal)})
		os.Exit(interrupted{second.(syscall.Signal)}.exitCode())
	}()
	os.Exit(run(ctx, e, os.Args[1:]))
}

// stopSignals are the signals that stop a long phase, less those ignored
// when gcbench started: `nohup gcbench sweep … &` ignores SIGHUP, and a
// handler would undo that, so the sweep would stop at logout.
func stopSignals() []os.Signal {
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// interrupted is the cause of the context a signal cancelled.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string {
	if name := unix.SignalName(i.sig); name != "" {
		return "interrupted by " + name
	}
	return "interrupted by signal " + i.sig.String()
}

// exitCode is the shell's convention for death by a signal: 128 + its
// number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
func (i interrupted) exitCode() int { return 128 + int(i.sig) }

// run dispatches to a subcommand and maps its outcome to an exit status.
func run(ctx context.Context, e *env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "gcbench: internal error: %v\n", r)
			code = 1
		}
	}()
	name, rest := "run", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	if name == "help" {
		printCommands(e.stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "gcbench: unknown command %q (try 'gcbench help')\n", name)
		return 2
	}
	err := cmd.run(ctx, e, rest)
	var intr interrupted
	switch {
	case errors.As(context.Cause(ctx), &intr):
		var kept *keptElsewhereError
		switch {
		case errors.As(err, &kept): // the signal ended a wait for the output's reader: say where it went
			err = fmt.Errorf("%v; %w", intr, err)
		case err == nil || errors.Is(err, context.Canceled):
			err = intr
		}
		fmt.Fprintf(e.stderr, "gcbench %s: %v\n", name, err)
		return intr.exitCode()
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(e.stderr, "gcbench %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(e.stderr, "gcbench %s: %v\n", name, err)
		return 1
	}
}

func printCommands(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: gcbench [command] [flags]   (default command: run)")
	fmt.Fprintln(w, "commands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-13s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "'gcbench COMMAND --help' documents a command's flags.")
}

// newFlagSet returns the flag set of a subcommand. Errors are not printed by
// pflag: parseFlags turns them into one-line usage errors.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses a subcommand's arguments. done reports that the command
// must return err at once: after --help, which prints usage followed by the
// flags' documentation to stdout (err is nil), or after a bad flag (err is a
// usage error).
func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer, usage string) (done bool, err error) {
	err = fs.Parse(args)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprint(stdout, usage, fs.FlagUsages())
		return true, nil
	default:
		return true, usagef("%v", err)
	}
}
