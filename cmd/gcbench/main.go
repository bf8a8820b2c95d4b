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
	"strings"
	"syscall"
	"time"

	"github.com/gcbench/gcbench/cmd/gcbench/internal/outfile"
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

// commands returns the subcommand table. "run" is also what a bare
// `gcbench` (or `gcbench --flag…`) runs. A function, not a variable: run's
// --help lists the table, which holds run.
func commands() map[string]command {
	return map[string]command{
		"run":          {summary: "compare minor-collection pauses across dispatch modes (the default command)", run: cmdRun},
		"sweep":        {summary: "run over a grid of workers, wake policies, backends and heap sizes, a JSON file per point (resumable, shardable)", run: cmdSweep},
		"predict":      {summary: "predict perjob, batch and startbatch pauses on more cores, with a model checked first against sweep points (--dir)", run: cmdPredict},
		"report":       {summary: "re-render or merge saved JSON results (FILE.json...)", run: cmdReport},
		"readylist":    {summary: "stress-epoll protocol: lock-free MPSC list vs mutex list, events/ms", run: cmdReadylist},
		"pool":         {summary: "DedicatedThreadPool protocols: pool throughput and latency vs a goroutine per item", run: cmdPool},
		"trace":        {summary: "summarize a trace file (events per kind, lost) or convert it: --perfetto OUT.json", run: cmdTrace},
		"trace-stress": {summary: "EventPipe stress protocol: lockless vs locked buffer reservation", run: cmdTraceStress},
		"version":      {summary: "print the version, the Go toolchain, and whether the native backend is built in", run: cmdVersion},
	}
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
		second := interrupted{(<-sigs).(syscall.Signal)}
		e.temps.RemoveTemps()
		said := make(chan struct{})
		go func() { // stderr may be a pipe nobody reads: the exit does not wait for the line
			fmt.Fprintf(e.stderr, "gcbench: %v, a second signal: exiting at once, temporary files removed\n", second)
			close(said)
		}()
		select {
		case <-said:
		case <-time.After(100 * time.Millisecond):
		}
		os.Exit(second.exitCode())
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
	cmd, ok := commands()[name]
	if !ok {
		fmt.Fprintf(e.stderr, "gcbench: unknown command %q (try 'gcbench help')\n", name)
		return 2
	}
	err := cmd.run(ctx, e, rest)
	var intr interrupted
	code = 1
	switch {
	case errors.As(context.Cause(ctx), &intr):
		code = intr.exitCode()
		if onlyCancelled(err) {
			err = intr
		} else { // what failed beside the stop (an output lost, one kept elsewhere) is said too
			err = fmt.Errorf("%v; %w", intr, err)
		}
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		code = 2
	}
	fmt.Fprintf(e.stderr, "gcbench %s: %s\n", name, oneLine(err.Error()))
	return code
}

// onlyCancelled reports whether err says nothing but that the command was
// stopped: nil, or context.Canceled or a signal's interrupted, however
// wrapped, on every branch of a joined error.
func onlyCancelled(err error) bool {
	switch u := err.(type) {
	case nil:
		return true
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if !onlyCancelled(e) {
				return false
			}
		}
		return true
	case *outfile.KeptError: // it names where an output went: never only a stop
		return false
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			return onlyCancelled(inner)
		}
	}
	_, intr := err.(interrupted)
	return err == context.Canceled || intr
}

// oneLine keeps a message on one line, whatever a path or value in it
// holds: line breaks and other control characters are shown escaped.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", " ").Replace(s))
}
