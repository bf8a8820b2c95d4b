// Command gcbench measures what job dispatch costs a parallel garbage
// collector's pause, and reruns the benchmark protocols of the systems
// gcbench learns from. It is a thin layer over the library packages: it
// parses flags, builds configurations, runs and renders.
//
// Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage. Errors
// are one line on stderr; a Go panic is never shown to the user.
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

	"github.com/spf13/pflag"
)

// A command is one gcbench subcommand. run receives the arguments after the
// subcommand's name; it returns a usage error (see usagef) for bad input.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the subcommand table. "run" is also what a bare `gcbench`
// (or `gcbench --flag…`) runs.
var commands = map[string]command{
	// Each subcommand's file adds its line here.
	"run":          {summary: "compare minor-collection pauses across dispatch modes (the default command)", run: cmdRun},
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and maps its outcome to an exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gcbench: internal error: %v\n", r)
			code = 1
		}
	}()
	name, rest := "run", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	if name == "help" {
		printCommands(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "gcbench: unknown command %q (try 'gcbench help')\n", name)
		return 2
	}
	err := cmd.run(ctx, rest, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "gcbench %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "gcbench %s: %v\n", name, err)
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
