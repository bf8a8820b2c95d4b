package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws one bar on a terminal: collections done out of the total,
// the per-mode counts, and an estimated time to completion. It is safe for
// concurrent use; a nil *progress does nothing, which is what a run gets
// when stderr is not a terminal, so that logs and pipes stay clean.
type progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	modes []string
	done  []int
	total []int
	every time.Duration // minimum time between redraws
	drawn time.Time
}

// newTerminalProgress returns a progress bar on stderr if stderr is a
// terminal, else nil.
func newTerminalProgress(stderr io.Writer, modes []string, perMode int) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return newProgress(f, modes, perMode, 100*time.Millisecond)
}

// newProgress draws on w unconditionally (tests use a buffer), at most once
// per every.
func newProgress(w io.Writer, modes []string, perMode int, every time.Duration) *progress {
	p := &progress{modes: modes, done: make([]int, len(modes)), total: make([]int, len(modes)), every: every}
	for i := range p.total {
		p.total[i] = perMode
	}
	p.bar = progressbar.NewOptions(perMode*len(modes),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetDescription(p.describe()),
	)
	return p
}

// update records that mode (an index into the modes) has done of total
// collections.
func (p *progress) update(mode, done, total int) {
	if p == nil || mode < 0 || mode >= len(p.modes) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[mode], p.total[mode] = done, total
	// The bar redraws on every Set and Describe; a collection can take
	// less than a millisecond, so redraw on a clock, and at a mode's end.
	if now := time.Now(); now.Sub(p.drawn) >= p.every || done == total {
		p.drawn = now
	} else {
		return
	}
	sum, max := 0, 0
	for i := range p.done {
		sum, max = sum+p.done[i], max+p.total[i]
	}
	if int64(max) != p.bar.GetMax64() {
		p.bar.ChangeMax(max)
	}
	_ = p.bar.Set(sum) // a terminal write error is not worth failing a run for
	p.bar.Describe(p.describe())
}

func (p *progress) describe() string {
	parts := make([]string, len(p.modes))
	for i, m := range p.modes {
		parts[i] = fmt.Sprintf("%s %d/%d", m, p.done[i], p.total[i])
	}
	return strings.Join(parts, "  ")
}

// finish removes the bar.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Finish()
	_ = p.bar.Exit()
}

// newLineProgress returns a progress callback for a benchmark protocol
// that redraws one line on stderr, or nil when stderr is not a terminal
// (progress never pollutes a log), and clear, which erases the line
// whether the protocol finished or was stopped; call it before any output.
func newLineProgress(stderr io.Writer, name string) (update func(done, total int), clear func()) {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
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
