package render

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gcbench/gcbench/analysis/report"
)

// HDRSignificantDigits is the precision of every histogram WriteHDRLog
// writes: a recorded value reads back within 0.1% of itself.
const HDRSignificantDigits = 3

// DefaultHDRInterval is how many collections of a mode one interval
// histogram of WriteHDRLog holds unless told otherwise.
const DefaultHDRInterval = 100

// WriteHDRLog writes the pauses of every run in the HdrHistogram interval
// log format (version 1.3, as jHiccup and HistogramLogAnalyzer read it):
// the #[StartTime: and #[BaseTime: headers, then for each mode, per
// `every` collections of it, one histogram line tagged with the mode
// ("Tag=perjob,…"; "host/mode" when the report merges several runs).
// Values are nanoseconds, at HDRSignificantDigits. The interval's max
// column is in milliseconds: the library's writer divides by 10⁶, its
// ratio for nanosecond values, which these are.
//
// gcbench records no time per collection, so the intervals' timestamps
// spread each run's elapsed time evenly over its collections (modes run
// interleaved, so interval k of every mode covers the same stretch); the
// log's comment says so. Timestamps are seconds since the earliest run's
// start, which is the log's StartTime and BaseTime.
func WriteHDRLog(w io.Writer, r *report.Report, every int) error {
	if every < 1 {
		return fmt.Errorf("%w: an interval of %d collections", ErrInvalidInput, every)
	}
	if len(r.Runs) == 0 {
		return fmt.Errorf("%w: no runs to write", ErrInvalidInput)
	}
	base := r.Runs[0].Started
	for _, run := range r.Runs[1:] {
		if run.Started.Before(base) {
			base = run.Started
		}
	}
	baseMs := base.UnixMilli()
	if base.IsZero() {
		baseMs = 0
	}
	bw := bufio.NewWriter(w)
	lw := hdrhistogram.NewHistogramLogWriter(bw)
	lw.SetBaseTime(baseMs)
	comments := []string{
		" gcbench: " + oneLine(r.Title) + "; values in nanoseconds, " +
			fmt.Sprintf("%d significant digits, one histogram per %d collections of a mode, tagged with the mode", HDRSignificantDigits, every),
		" interval times spread each run's elapsed time evenly over its collections (gcbench records no time per collection)",
		" config: " + r.Config.String(),
	}
	labels := runLabels(r)
	for _, run := range r.Runs {
		comments = append(comments, " host: "+describeHost(run))
		if run.Partial != "" {
			comments = append(comments, " PARTIAL: "+oneLine(run.Partial))
		}
	}
	err := lw.OutputLogFormatVersion()
	for _, c := range comments {
		err = firstErr(err, lw.OutputComment(c))
	}
	err = firstErr(err, lw.OutputStartTime(baseMs))
	err = firstErr(err, lw.OutputBaseTime(baseMs))
	err = firstErr(err, lw.OutputLegend())
	if err != nil {
		return fmt.Errorf("render: writing HdrHistogram log: %w", err)
	}
	for ri := range r.Runs {
		run := &r.Runs[ri]
		startMs := run.Started.UnixMilli()
		if run.Started.IsZero() {
			startMs = baseMs
		}
		for _, m := range run.Modes {
			tag := m.Name
			if labels[ri] != "" {
				tag = labels[ri] + "/" + m.Name
			}
			if err := writeHDRMode(lw, hdrTag(tag), m.Pauses, every, startMs, time.Duration(run.Elapsed)); err != nil {
				return err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render: writing HdrHistogram log: %w", err)
	}
	return nil
}

// writeHDRMode writes one mode's pauses as interval histograms of `every`
// collections each.
func writeHDRMode(lw *hdrhistogram.HistogramLogWriter, tag string, pauses []float64, every int, startMs int64, elapsed time.Duration) error {
	ns := make([]int64, len(pauses))
	for i, p := range pauses {
		ns[i] = PauseNanos(p)
	}
	// One range for every interval of the mode, so that they merge.
	highest := max(2, slices.Max(ns))
	n := len(ns)
	at := func(i int) int64 { // the estimated time of collection i, ms since the epoch
		return startMs + int64(float64(elapsed.Milliseconds())*float64(i)/float64(n))
	}
	for lo := 0; lo < n; lo += every {
		hi := min(lo+every, n)
		h := hdrhistogram.New(1, highest, HDRSignificantDigits)
		for _, v := range ns[lo:hi] {
			if err := h.RecordValue(v); err != nil {
				return fmt.Errorf("render: HdrHistogram of %s: %w", tag, err)
			}
		}
		h.SetTag(tag)
		h.SetStartTimeMs(at(lo))
		h.SetEndTimeMs(at(hi))
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("render: writing HdrHistogram log: %w", err)
		}
	}
	return nil
}

// PauseNanos is a pause of a Report (µs) in whole nanoseconds, the unit of
// WriteHDRLog and WriteBench: pauses are measured in nanoseconds, and
// rounding drops the binary fraction that microseconds as a float add.
func PauseNanos(us float64) int64 { return int64(math.Round(us * 1000)) }

// hdrTag makes s a log tag: the format ends a tag at a comma and allows no
// space or line break in it.
func hdrTag(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || unicode.IsSpace(r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, s)
}

func firstErr(err, next error) error {
	if err != nil {
		return err
	}
	return next
}
