package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// Help: the command list (gcbench help, and the end of run's --help), and
// each command's --help, its usage followed by its flags, wrapped to
// helpColumns.

// helpColumns is the width --help and help keep every line within:
// pflag wraps nothing by itself.
const helpColumns = 100

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "usage: gcbench [command] [flags]   (default command: run)")
	printCommandList(w)
}

// printCommandList prints the commands with their summaries, wrapped to
// helpColumns; run's --help ends with it, so `gcbench --help` names them.
func printCommandList(w io.Writer) {
	cmds := commands()
	fmt.Fprintln(w, "commands:")
	const indent = 2 + 13 + 1
	for _, n := range slices.Sorted(maps.Keys(cmds)) {
		lines := wrapWords(cmds[n].summary, helpColumns-indent)
		fmt.Fprintf(w, "  %-13s %s\n", n, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%*s%s\n", indent, "", l)
		}
	}
	fmt.Fprintln(w, "'gcbench COMMAND --help' documents a command's flags.")
}

// wrapWords breaks s at spaces into lines of at most width runes (a word
// longer than width stands alone on its line).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
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
		fmt.Fprint(stdout, usage, fs.FlagUsagesWrapped(helpColumns))
		if fs.Name() == "run" { // what a bare `gcbench --help` prints: say what else there is
			fmt.Fprintln(stdout)
			printCommandList(stdout)
		}
		return true, nil
	default:
		return true, usagef("%v", err)
	}
}

// parseOnlyFlags is parseFlags for a command that takes flags alone: an
// argument after them is bad usage.
func parseOnlyFlags(fs *pflag.FlagSet, args []string, stdout io.Writer, usage string) (done bool, err error) {
	if done, err := parseFlags(fs, args, stdout, usage); done {
		return true, err
	}
	if fs.NArg() > 0 {
		return true, usagef("unexpected argument %q (%s takes only flags)", fs.Arg(0), fs.Name())
	}
	return false, nil
}
