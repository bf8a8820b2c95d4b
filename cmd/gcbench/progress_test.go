package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestProgressShowsPerModeCounts(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, []string{"serial", "batch"}, 10, 0)
	p.update(0, 10, 10)
	p.update(1, 3, 10)
	p.finish()
	out := b.String()
	for _, want := range []string{"serial 10/10", "batch 3/10", "13/20"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q: %q", want, out)
		}
	}
}

func TestProgressConcurrentUpdates(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, []string{"a", "b", "c"}, 100, time.Millisecond)
	var wg sync.WaitGroup
	for m := range 3 {
		wg.Go(func() {
			for i := 1; i <= 100; i++ {
				p.update(m, i, 100)
			}
		})
	}
	wg.Wait()
	p.finish()
}

func TestNoProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	if p := newTerminalProgress(&b, []string{"a"}, 1); p != nil {
		t.Error("progress on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newTerminalProgress(f, []string{"a"}, 1)
	if p != nil {
		t.Error("progress on a regular file")
	}
	p.update(0, 1, 1) // a nil progress is a no-op
	p.finish()
}
