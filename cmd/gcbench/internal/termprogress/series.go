package termprogress

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Series is one bar over comparisons run one after another (gcbench
// sweep's points): the collections done of all of them, out of a total
// known up front, with an estimated time to completion. It is safe for
// concurrent use; a nil *Series does nothing.
type Series struct {
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	base    int   // collections of the comparisons already done
	perMode []int // collections done in the current comparison, by mode
	every   time.Duration
	drawn   time.Time
}

// SeriesOnTerminal returns a bar named name over total collections on w
// if w is a terminal and there is something to count, else nil. It
// redraws at most every 100 ms.
func SeriesOnTerminal(w io.Writer, name string, total int) *Series {
	f, ok := terminal(w)
	if !ok || total == 0 {
		return nil
	}
	return NewSeries(f, name, total, 100*time.Millisecond)
}

// NewSeries draws on w unconditionally, at most once per every.
func NewSeries(w io.Writer, name string, total int, every time.Duration) *Series {
	return &Series{every: every, bar: progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish(),
		progressbar.OptionSetDescription(name))}
}

// Update records that mode (an index into the current comparison's modes)
// has done collections. A negative index is ignored.
func (p *Series) Update(mode, done int) {
	if p == nil || mode < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.perMode) <= mode {
		p.perMode = append(p.perMode, 0)
	}
	p.perMode[mode] = done
	// A collection can take less than a millisecond: redraw on a clock.
	if time.Since(p.drawn) < p.every {
		return
	}
	p.drawn = time.Now()
	sum := p.base
	for _, d := range p.perMode {
		sum += d
	}
	_ = p.bar.Set(sum) // a terminal write error is not worth failing a run for
}

// Next ends the current comparison: its collections count as done, and
// the next comparison's modes count from 0.
func (p *Series) Next() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.perMode {
		p.base += d
	}
	p.perMode = p.perMode[:0]
	_ = p.bar.Set(p.base)
}

// Finish removes the bar.
func (p *Series) Finish() {
	if p != nil {
		finish(&p.mu, p.bar)
	}
}
