// Package termprogress shows a long command's progress: as a bar on a
// terminal, and off one (a log, a pipe) as a plain line at most every
// few seconds. Its bars' constructors return nil when the writer is not a
// terminal, Lines' when it is, and every method of a nil value does
// nothing, so that the caller need not check.
//
// Four forms: Modes, one bar over a comparison's modes with each mode's
// count and an estimated time to completion (gcbench run); Series, one bar
// over comparisons run one after another (gcbench sweep); Line, one
// redrawn line "name: run i of n" for a benchmark protocol; and Lines, a
// comparison's progress off a terminal (gcbench run).
package termprogress

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// terminal returns w as a file if it is a terminal.
func terminal(w io.Writer) (*os.File, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return f, true
}

// Line returns a progress callback that redraws one line "name: run done
// of total" on w, or nil when w is not a terminal, and clear, which erases
// the line whether the work finished or was stopped (and does nothing
// when there is none); call it before any output.
func Line(w io.Writer, name string) (update func(done, total int), clear func()) {
	f, ok := terminal(w)
	if !ok {
		return nil, func() {}
	}
	drawn := false
	update = func(done, total int) {
		fmt.Fprintf(f, "\r%s: run %d of %d", name, done, total)
		drawn = true
	}
	clear = func() {
		if drawn {
			fmt.Fprint(f, "\r\033[K")
			drawn = false
		}
	}
	return update, clear
}
