package termprogress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Modes is one bar over a comparison's modes: collections done out of the
// total, each mode's count, and an estimated time to completion. It is
// safe for concurrent use; a nil *Modes does nothing.
type Modes struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	modes []string
	done  []int
	total []int
	every time.Duration // minimum time between redraws
	drawn time.Time
}

// OnTerminal returns a bar for modes, each of perMode collections, on w if
// w is a terminal, else nil. It redraws at most every 100 ms.
func OnTerminal(w io.Writer, modes []string, perMode int) *Modes {
	f, ok := terminal(w)
	if !ok {
		return nil
	}
	return NewModes(f, modes, perMode, 100*time.Millisecond)
}

// NewModes draws on w unconditionally, at most once per every.
func NewModes(w io.Writer, modes []string, perMode int, every time.Duration) *Modes {
	p := &Modes{modes: modes, done: make([]int, len(modes)), total: make([]int, len(modes)), every: every}
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

// Update records that mode (an index into the modes) has done of total
// collections. An index out of range is ignored.
func (p *Modes) Update(mode, done, total int) {
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
	p.redraw()
}

func (p *Modes) redraw() {
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

func (p *Modes) describe() string {
	parts := make([]string, len(p.modes))
	for i, m := range p.modes {
		parts[i] = fmt.Sprintf("%s %d/%d", m, p.done[i], p.total[i])
	}
	return strings.Join(parts, "  ")
}

// Finish removes the bar.
func (p *Modes) Finish() {
	if p != nil {
		finish(&p.mu, p.bar)
	}
}

// finish removes bar, drawn under mu: what every bar's Finish does.
func finish(mu *sync.Mutex, bar *progressbar.ProgressBar) {
	mu.Lock()
	defer mu.Unlock()
	_ = bar.Finish()
	_ = bar.Exit()
}
