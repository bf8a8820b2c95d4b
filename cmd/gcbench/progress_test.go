package main

import (
	"bytes"
	"testing"
)

// TestNoProgressOffTerminal: off a terminal run gets no bar, and a nil
// bar's methods do nothing.
func TestNoProgressOffTerminal(t *testing.T) {
	p := newTerminalProgress(&bytes.Buffer{}, []string{"a"}, 1)
	if p != nil {
		t.Error("progress on a buffer")
	}
	p.update(0, 1, 1)
	p.finish()
}
