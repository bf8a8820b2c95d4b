package main

import (
	"io"

	"github.com/gcbench/gcbench/internal/termprogress"
)

// progress is run's bar over its modes (package termprogress), under the
// names run.go calls; nil off a terminal, and then a no-op.
type progress struct{ bar *termprogress.Modes }

func newTerminalProgress(stderr io.Writer, modes []string, perMode int) *progress {
	if bar := termprogress.OnTerminal(stderr, modes, perMode); bar != nil {
		return &progress{bar}
	}
	return nil
}

func (p *progress) update(mode, done, total int) {
	if p != nil {
		p.bar.Update(mode, done, total)
	}
}

func (p *progress) finish() {
	if p != nil {
		p.bar.Finish()
	}
}
