package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ChromeTrack is one track (one row of the timeline) of a Chrome export:
// thread TID of process PID. Perfetto groups a process's tracks under the
// process's name.
type ChromeTrack struct {
	PID int
	TID int64
}

// ChromePhase is how an event appears on its track.
type ChromePhase byte

const (
	// ChromeInstant is a point in time on the track ("ph":"i", thread scope).
	ChromeInstant ChromePhase = 'i'
	// ChromeBegin opens a slice on the track ("ph":"B").
	ChromeBegin ChromePhase = 'B'
	// ChromeEnd closes the innermost slice still open on the track
	// ("ph":"E"); its name should be the one its ChromeBegin had.
	ChromeEnd ChromePhase = 'E'
)

// ChromePlace is where and how ExportChrome writes one event. Every event's
// args hold its writer ("writer") and sequence number ("seq"); a place adds
// the event's Arg and payload size if they mean something to the reader.
type ChromePlace struct {
	Track ChromeTrack
	Phase ChromePhase
	// ArgName, if not empty, is the key under which the args hold the
	// event's Arg, as an unsigned number.
	ArgName string
	// PayloadBytes adds the payload's length to the args, as "bytes".
	PayloadBytes bool
}

// ChromeMapping lays out a caller's events in a Chrome export: trace knows
// what an event's Kind and Arg mean only through it. ExportChrome calls
// Place and AppendName once per event, in order, so for the export to stay
// free of per-event allocation they must not allocate; ProcessName and
// ThreadName are called once per process and per track that events were
// placed on, after the last event. All are called from ExportChrome's
// goroutine only. ExportChrome escapes every name for JSON.
type ChromeMapping interface {
	// Place says where ev goes.
	Place(ev Event) ChromePlace
	// AppendName appends the name of ev's slice or instant to b and
	// returns the extended slice.
	AppendName(b []byte, ev Event) []byte
	// ProcessName names a process that holds at least one track.
	ProcessName(pid int) string
	// ThreadName names a track that holds at least one event.
	ThreadName(tr ChromeTrack) string
}

// WriterTracks is the ChromeMapping that knows no kind: every event is an
// instant on its writer's own track (TID = writer id) in process PID, named
// by its Kind's String, with its Arg ("arg") and payload size ("bytes").
// A mapping that knows some kinds hands it the others.
type WriterTracks struct{ PID int }

var _ ChromeMapping = WriterTracks{}

// Place puts ev on its writer's track, as an instant.
func (m WriterTracks) Place(ev Event) ChromePlace {
	return ChromePlace{Track: ChromeTrack{m.PID, int64(ev.Writer)}, Phase: ChromeInstant, ArgName: "arg", PayloadBytes: true}
}

// AppendName appends ev.Kind's String, allocating nothing.
func (WriterTracks) AppendName(b []byte, ev Event) []byte { return ev.Kind.appendName(b) }

// ProcessName is "writers".
func (WriterTracks) ProcessName(int) string { return "writers" }

// ThreadName is "writer N".
func (WriterTracks) ThreadName(tr ChromeTrack) string { return fmt.Sprintf("writer %d", tr.TID) }

// MaxChromeTracks is the most distinct tracks that ExportChrome emits. It
// bounds the exporter's memory whatever the trace holds: a mapping may
// derive a track from an event's Arg, so a crafted trace could otherwise
// ask for a track per event.
const MaxChromeTracks = 1 << 14

// ErrTooManyTracks is wrapped by ExportChrome's error when a trace needs
// more than MaxChromeTracks tracks.
var ErrTooManyTracks = errors.New("trace: too many tracks for the Chrome export")

// ExportChrome converts a trace to the Chrome trace-event JSON format
// (the JSON object form, {"traceEvents": [...], ...}), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open, laying out the events as m
// places them (a nil m is WriterTracks{PID: 1}). Timestamps are in
// microseconds since the session start, exact to the nanosecond.
//
// It streams: its memory is bounded by its buffers and one entry per
// track, whatever the trace's size, and it allocates nothing per event if
// m does not. A truncated trace (Reader.Truncated) exports the events it
// holds, as a complete document whose otherData says "truncated": true
// (slices begun before the cut may stay open). A damaged trace returns the
// reader's error, a trace that needs more than MaxChromeTracks tracks an
// error wrapping ErrTooManyTracks, and a place with a phase other than the
// three ChromePhase constants (a zero ChromePlace's, for one) an error
// wrapping ErrInvalidOptions; what was written until then is not valid
// JSON.
func ExportChrome(dst io.Writer, r *Reader, m ChromeMapping) error {
	if m == nil {
		m = WriterTracks{PID: 1}
	}
	x := &chromeExport{w: bufio.NewWriterSize(dst, 64<<10), m: m, buf: make([]byte, 0, 512),
		name: make([]byte, 0, 64), tracks: map[ChromeTrack]struct{}{}}
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

// chromeExport is ExportChrome's state: O(tracks), never O(events).
type chromeExport struct {
	w      *bufio.Writer
	m      ChromeMapping
	buf    []byte // one event's JSON, reused
	name   []byte // one event's name before escaping, reused
	n      int    // array elements written
	tracks map[ChromeTrack]struct{}
}

// event writes one event, adding its track if it is new.
func (x *chromeExport) event(ev Event) error {
	p := x.m.Place(ev)
	if p.Phase != ChromeInstant && p.Phase != ChromeBegin && p.Phase != ChromeEnd {
		return fmt.Errorf("%w: the mapping placed writer %d's %v event (sequence %d) with phase %q, want %q, %q or %q",
			ErrInvalidOptions, ev.Writer, ev.Kind, ev.Seq, rune(p.Phase), rune(ChromeInstant), rune(ChromeBegin), rune(ChromeEnd))
	}
	if _, ok := x.tracks[p.Track]; !ok {
		if len(x.tracks) == MaxChromeTracks {
			return fmt.Errorf("%w: writer %d's %v event (sequence %d) needs track %d of process %d, beyond the %d the export allows",
				ErrTooManyTracks, ev.Writer, ev.Kind, ev.Seq, p.Track.TID, p.Track.PID, MaxChromeTracks)
		}
		x.tracks[p.Track] = struct{}{}
	}
	x.name = x.m.AppendName(x.name[:0], ev)
	x.buf = appendChromeEvent(x.element(x.buf[:0]), ev, p, x.name)
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

// appendChromeEvent appends ev as one trace event object, allocating
// nothing beyond b's growth.
func appendChromeEvent(b []byte, ev Event, p ChromePlace, name []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"cat":"gcbench","ph":"`...)
	b = append(b, byte(p.Phase))
	b = append(b, `","ts":`...)
	b = appendMicros(b, int64(ev.Time))
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(p.Track.PID), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, p.Track.TID, 10)
	if p.Phase != ChromeBegin && p.Phase != ChromeEnd {
		b = append(b, `,"s":"t"`...)
	}
	b = append(b, `,"args":{"writer":`...)
	b = strconv.AppendUint(b, uint64(ev.Writer), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	if p.ArgName != "" {
		b = append(b, ',')
		b = appendJSONString(b, p.ArgName)
		b = append(b, ':')
		b = strconv.AppendUint(b, ev.Arg, 10)
	}
	if p.PayloadBytes {
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, int64(len(ev.Payload)), 10)
	}
	return append(b, "}}"...)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, as
// encoding/json does.
func appendJSONString[S []byte | string](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			var enc [utf8.UTFMax]byte // a copy, so that both types decode without allocating
			r, n := utf8.DecodeRune(enc[:copy(enc[:], s[i:])])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return append(b, '"')
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
	tracks := make([]ChromeTrack, 0, len(x.tracks))
	for tr := range x.tracks {
		tracks = append(tracks, tr)
	}
	slices.SortFunc(tracks, func(a, b ChromeTrack) int {
		if a.PID != b.PID {
			return compareInt64(int64(a.PID), int64(b.PID))
		}
		return compareInt64(a.TID, b.TID)
	})
	for i, tr := range tracks {
		if i == 0 || tracks[i-1].PID != tr.PID {
			x.meta(ChromeTrack{tr.PID, 0}, "process_name", x.m.ProcessName(tr.PID))
		}
		x.meta(tr, "thread_name", x.m.ThreadName(tr))
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

// meta writes one metadata event.
func (x *chromeExport) meta(tr ChromeTrack, kind, name string) {
	b := x.element(x.buf[:0])
	b = append(b, `{"name":"`...)
	b = append(b, kind...)
	b = append(b, `","ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(tr.PID), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tr.TID, 10)
	b = append(b, `,"args":{"name":`...)
	b = appendJSONString(b, name)
	x.buf = append(b, "}}"...)
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
