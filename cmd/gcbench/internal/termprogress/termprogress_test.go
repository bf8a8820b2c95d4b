package termprogress

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"

	"golang.org/x/sys/unix"
)

func TestProgressShowsPerModeCounts(t *testing.T) {
	var b bytes.Buffer
	p := NewModes(&b, []string{"serial", "batch"}, 10, 0)
	p.Update(0, 10, 10)
	p.Update(1, 3, 10)
	p.Finish()
	out := b.String()
	for _, want := range []string{"serial 10/10", "batch 3/10", "13/20"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress output lacks %q: %q", want, out)
		}
	}
}

func TestProgressConcurrentUpdates(t *testing.T) {
	var b bytes.Buffer
	p := NewModes(&b, []string{"a", "b", "c"}, 100, time.Millisecond)
	var wg sync.WaitGroup
	for m := range 3 {
		wg.Go(func() {
			for i := 1; i <= 100; i++ {
				p.Update(m, i, 100)
			}
		})
	}
	testwait.Do(t, time.Minute, "300 progress updates from 3 goroutines", wg.Wait)
	p.Finish()
}

func TestNoProgressOffTerminal(t *testing.T) {
	var b bytes.Buffer
	if p := OnTerminal(&b, []string{"a"}, 1); p != nil {
		t.Error("progress on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := OnTerminal(f, []string{"a"}, 1)
	if p != nil {
		t.Error("progress on a regular file")
	}
	p.Update(0, 1, 1) // a nil progress is a no-op
	p.Finish()
}

// openPTY opens a pseudo-terminal: what is written to slave, a terminal
// to term.IsTerminal, can be read from master.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestLineProgressIsClearedWhenStopped: a protocol stopped before its last
// run leaves no progress line under what it prints next; clear erases it
// whenever it is called, once.
func TestLineProgressIsClearedWhenStopped(t *testing.T) {
	master, slave := openPTY(t)
	update, clear := Line(slave, "pool")
	if update == nil {
		t.Fatal("no progress on a terminal")
	}
	update(3, 10) // stopped here
	clear()
	clear()
	want := "\rpool: run 3 of 10\r\033[K"
	got := make(chan string, 1)
	go func() { // a read returns what has arrived: read until all of it has
		var b []byte
		buf := make([]byte, 256)
		for len(b) < len(want) {
			n, err := master.Read(buf)
			if err != nil {
				break
			}
			b = append(b, buf[:n]...)
		}
		got <- string(b)
	}()
	select {
	case g := <-got:
		if g != want {
			t.Errorf("terminal got %q, want %q", g, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the terminal did not get %q", want)
	}
}
