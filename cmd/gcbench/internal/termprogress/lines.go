package termprogress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// DefaultEvery is how often Lines reports at most, unless told otherwise.
const DefaultEvery = 10 * time.Second

// IsTerminal reports whether w is a terminal: where the bars draw, and
// where Lines does not write.
func IsTerminal(w io.Writer) bool {
	_, ok := terminal(w)
	return ok
}

// Lines reports a comparison's progress off a terminal, where a bar would
// fill a log with redraws: one plain line at most once per interval,
//
//	gcbench: 1234 of 4500 collections (serial 412/1500, perjob 411/1500, batch 411/1500), 1m10s so far, about 3m5s left
//
// the time left extrapolated from the pace since the first collection
// was reported (not since the Lines was made: building a heap before it
// can take longer than the collections do), once there is a pace. It
// writes nothing else (no start line: the caller knows what runs) and no
// line per collection. It is safe for concurrent use; a nil *Lines does
// nothing.
type Lines struct {
	mu          sync.Mutex
	w           io.Writer
	prefix      string
	modes       []string
	done, total []int
	every       time.Duration
	start, last time.Time
	now         func() time.Time
	first       time.Time // when the first Update came, and the collections then
	firstSum    int
}

// OffTerminal returns Lines for modes, each of perMode collections,
// reporting on w at most once per every, if w is not a terminal; on a
// terminal it returns nil (OnTerminal's bar is for there). prefix starts
// every line ("gcbench").
func OffTerminal(w io.Writer, prefix string, modes []string, perMode int, every time.Duration) *Lines {
	if IsTerminal(w) {
		return nil
	}
	return newLines(w, prefix, modes, perMode, every, time.Now)
}

func newLines(w io.Writer, prefix string, modes []string, perMode int, every time.Duration, now func() time.Time) *Lines {
	l := &Lines{w: w, prefix: prefix, modes: modes, done: make([]int, len(modes)), total: make([]int, len(modes)),
		every: every, now: now}
	for i := range l.total {
		l.total[i] = perMode
	}
	l.start = now()
	l.last = l.start
	return l
}

// Update records that mode (an index into the modes) has done of total
// collections, and writes a line if the last one (or the start) is at
// least an interval ago. An index out of range is ignored.
func (l *Lines) Update(mode, done, total int) {
	if l == nil || mode < 0 || mode >= len(l.modes) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done[mode], l.total[mode] = done, total
	now := l.now()
	if l.first.IsZero() {
		l.first = now
		for _, d := range l.done {
			l.firstSum += d
		}
	}
	if now.Sub(l.last) < l.every {
		return
	}
	l.last = now
	sum, max := 0, 0
	parts := make([]string, len(l.modes))
	for i, m := range l.modes {
		sum, max = sum+l.done[i], max+l.total[i]
		parts[i] = fmt.Sprintf("%s %d/%d", m, l.done[i], l.total[i])
	}
	elapsed := now.Sub(l.start)
	line := fmt.Sprintf("%s: %d of %d collections (%s), %s so far", l.prefix, sum, max, strings.Join(parts, ", "), elapsed.Round(time.Second))
	if paced := sum - l.firstSum; paced > 0 && sum < max {
		left := time.Duration(float64(now.Sub(l.first)) * float64(max-sum) / float64(paced))
		line += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	_, _ = fmt.Fprintln(l.w, line) // a log's write error is not worth failing a run for
}
