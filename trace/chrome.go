package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Track ids of the Chrome export. The collector track carries collection
// spans and enqueues (and jobs run inline, jobs.Inline); worker w's jobs,
// wakes and futile wakes go on track w+1, inside the "pool" process. Events
// of other kinds go on one track per writer in the "writers" process.
const (
	chromePoolPID    = 1
	chromeWritersPID = 2
)

// MaxChromeTracks is the most distinct tracks (collector, workers and
// writers together) that ExportChrome emits. It bounds the exporter's
// memory whatever the trace holds: a worker index is an event's argument,
// so a crafted trace could otherwise ask for a track per event. gcbench's
// own traces need one track per worker and per writer.
const MaxChromeTracks = 1 << 14

// ErrTooManyTracks is wrapped by ExportChrome's error when a trace needs
// more than MaxChromeTracks tracks.
var ErrTooManyTracks = errors.New("trace: too many tracks for the Chrome export")

// ExportChrome converts a trace to the Chrome trace-event JSON format
// (the JSON object form, {"traceEvents": [...], ...}), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Collections and jobs become
// B/E duration slices, the rest instant events; timestamps are in
// microseconds since the session start, exact to the nanosecond.
//
// It streams: its memory is bounded by its buffers and one entry per
// track, whatever the trace's size, and it allocates nothing per event.
// A truncated trace (Reader.Truncated) exports the events it holds, as a
// complete document whose otherData says "truncated": true (slices begun
// before the cut may stay open). A damaged trace returns the reader's
// error, and a trace that needs more than MaxChromeTracks tracks an error
// wrapping ErrTooManyTracks; what was written until then is not valid JSON.
func ExportChrome(dst io.Writer, r *Reader) error {
	x := &chromeExport{w: bufio.NewWriterSize(dst, 64<<10), buf: make([]byte, 0, 512), tracks: map[chromeTrack]struct{}{}}
	// traceEvents comes first: older Perfetto importers stop at the first
	// top-level key they do not know, so any key before it could hide
	// every event.
	x.w.WriteString(`{"traceEvents":[`)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := x.event(ev); err != nil {
			return err
		}
	}
	x.metadata()
	x.trailer(r)
	if err := x.w.Flush(); err != nil {
		return fmt.Errorf("trace: export: %w", err)
	}
	return nil
}

// chromeTrack is one track of the export: a process and a thread id.
type chromeTrack struct {
	pid int
	tid int64
}

// chromeExport is ExportChrome's state: O(tracks), never O(events).
type chromeExport struct {
	w      *bufio.Writer
	buf    []byte // one event's JSON, reused
	n      int    // array elements written
	tracks map[chromeTrack]struct{}
}

// event writes one event, adding its track if it is new.
func (x *chromeExport) event(ev Event) error {
	tr, ph := chromePlace(ev)
	if _, ok := x.tracks[tr]; !ok {
		if len(x.tracks) == MaxChromeTracks {
			return fmt.Errorf("%w: writer %d's %v event (sequence %d) needs track %d of process %d, beyond the %d the export allows",
				ErrTooManyTracks, ev.Writer, ev.Kind, ev.Seq, tr.tid, tr.pid, MaxChromeTracks)
		}
		x.tracks[tr] = struct{}{}
	}
	x.buf = appendChromeEvent(x.element(x.buf[:0]), ev, tr, ph)
	if _, err := x.w.Write(x.buf); err != nil {
		return fmt.Errorf("trace: export: %w", err)
	}
	return nil
}

// element starts the next array element: a comma after the first.
func (x *chromeExport) element(b []byte) []byte {
	if x.n > 0 {
		b = append(b, ',')
	}
	x.n++
	return append(b, '\n')
}

// chromePlace decides an event's track and phase ('B', 'E' or 'i').
func chromePlace(ev Event) (chromeTrack, byte) {
	collector := chromeTrack{chromePoolPID, 0}
	switch ev.Kind {
	case KindCollectionStart:
		return collector, 'B'
	case KindCollectionEnd:
		return collector, 'E'
	case KindEnqueue:
		return collector, 'i'
	case KindJobStart, KindJobEnd, KindWake, KindFutileWake:
		// Arg is the worker, two's complement: jobs.Inline (-1) runs on
		// the collector's goroutine, and so do indices that have no track
		// id (other negatives, and MaxInt64, whose id would overflow).
		tr := collector
		if w := int64(ev.Arg); w >= 0 && w < math.MaxInt64 {
			tr.tid = w + 1
		}
		switch ev.Kind {
		case KindJobStart:
			return tr, 'B'
		case KindJobEnd:
			return tr, 'E'
		}
		return tr, 'i'
	}
	return chromeTrack{chromeWritersPID, int64(ev.Writer)}, 'i'
}

// appendChromeEvent appends ev as one trace event object, allocating
// nothing. Names need no JSON escaping: they are kind names, made of
// ASCII letters, digits and "+-()".
func appendChromeEvent(b []byte, ev Event, tr chromeTrack, ph byte) []byte {
	b = append(b, `{"name":"`...)
	switch ev.Kind {
	case KindCollectionStart, KindCollectionEnd:
		b = append(b, "collection"...)
	case KindJobStart, KindJobEnd:
		b = append(b, "job"...)
	default:
		b = ev.Kind.appendName(b)
	}
	b = append(b, `","cat":"gcbench","ph":"`...)
	b = append(b, ph)
	b = append(b, `","ts":`...)
	b = appendMicros(b, int64(ev.Time))
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(tr.pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tr.tid, 10)
	if ph == 'i' {
		b = append(b, `,"s":"t"`...)
	}
	b = append(b, `,"args":{"writer":`...)
	b = strconv.AppendUint(b, uint64(ev.Writer), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	switch {
	case ev.Kind == KindCollectionStart || ev.Kind == KindCollectionEnd:
		b = append(b, `,"gc":`...)
		b = strconv.AppendUint(b, ev.Arg, 10)
	case ev.Kind == KindEnqueue:
		b = append(b, `,"jobs":`...)
		b = strconv.AppendUint(b, ev.Arg, 10)
	case tr.pid == chromeWritersPID:
		b = append(b, `,"arg":`...)
		b = strconv.AppendUint(b, ev.Arg, 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, int64(len(ev.Payload)), 10)
	}
	return append(b, "}}"...)
}

// appendMicros appends a non-negative nanosecond count as microseconds
// with three decimals, exactly (a float64 would round beyond 2^53 ns).
func appendMicros(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// metadata names the processes and tracks that appeared, in order.
func (x *chromeExport) metadata() {
	tracks := make([]chromeTrack, 0, len(x.tracks))
	for tr := range x.tracks {
		tracks = append(tracks, tr)
	}
	slices.SortFunc(tracks, func(a, b chromeTrack) int {
		if a.pid != b.pid {
			return a.pid - b.pid
		}
		return compareInt64(a.tid, b.tid)
	})
	for i, tr := range tracks {
		if i == 0 || tracks[i-1].pid != tr.pid {
			name := "pool"
			if tr.pid == chromeWritersPID {
				name = "writers"
			}
			x.meta(chromeTrack{tr.pid, 0}, "process_name", name)
		}
		switch {
		case tr.pid == chromeWritersPID:
			x.meta(tr, "thread_name", fmt.Sprintf("writer %d", tr.tid))
		case tr.tid == 0:
			x.meta(tr, "thread_name", "collector")
		default:
			x.meta(tr, "thread_name", fmt.Sprintf("worker %d", tr.tid-1))
		}
	}
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// meta writes one metadata event; names are ASCII without quotes.
func (x *chromeExport) meta(tr chromeTrack, kind, name string) {
	x.buf = x.element(x.buf[:0])
	x.buf = fmt.Appendf(x.buf, `{"name":%q,"ph":"M","pid":%d,"tid":%d,"args":{"name":%q}}`, kind, tr.pid, tr.tid, name)
	x.w.Write(x.buf) // a write error is sticky in bufio and returned by Flush
}

// trailer closes the array and writes the rest of the top-level object,
// including whether the trace was truncated, known only now.
func (x *chromeExport) trailer(r *Reader) {
	h := r.Header()
	fmt.Fprintf(x.w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"gcbench trace\",\"version\":%d,\"start\":%q,\"truncated\":%t",
		h.Version, h.Start.UTC().Format("2006-01-02T15:04:05.999999999Z"), r.Truncated())
	if r.Truncated() {
		fmt.Fprintf(x.w, ",\"truncated_at_byte\":%d", r.cutAt)
	}
	x.w.WriteString("}}\n")
}
