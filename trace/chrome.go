package trace

import (
	"bufio"
	"fmt"
	"io"
	"sort"
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

// ExportChrome converts a trace to the Chrome trace-event JSON format
// (the JSON object form, {"traceEvents": [...]}), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Collections and jobs become
// B/E duration slices, the rest instant events; timestamps are in
// microseconds since the session start. It returns the reader's error if
// the trace is damaged; what was written until then is not valid JSON.
func ExportChrome(dst io.Writer, r *Reader) error {
	w := bufio.NewWriterSize(dst, 1<<16)
	fmt.Fprintf(w, `{"displayTimeUnit":"ns","otherData":{"source":"gcbench trace","version":%d,"start":%q},"traceEvents":[`,
		r.Header().Version, r.Header().Start.UTC().Format("2006-01-02T15:04:05.999999999Z"))
	poolTracks := map[int64]bool{}
	writerTracks := map[uint32]bool{}
	n := 0
	buf := make([]byte, 0, 256)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		buf = appendChromeEvent(buf, ev, poolTracks, writerTracks)
		n++
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("trace: export: %w", err)
		}
	}
	for _, m := range chromeMetadata(poolTracks, writerTracks) {
		if n > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n" + m)
		n++
	}
	w.WriteString("\n]}\n")
	if err := w.Flush(); err != nil {
		return fmt.Errorf("trace: export: %w", err)
	}
	return nil
}

func appendChromeEvent(b []byte, ev Event, pool map[int64]bool, writers map[uint32]bool) []byte {
	name, ph, pid, tid := ev.Kind.String(), "i", chromePoolPID, int64(0)
	var args string
	worker := int64(ev.Arg) // two's complement: jobs.Inline (-1) stays -1
	switch ev.Kind {
	case KindCollectionStart, KindCollectionEnd:
		name, args = "collection", `"gc":`+strconv.FormatUint(ev.Arg, 10)
		ph = beginEnd(ev.Kind == KindCollectionStart)
	case KindEnqueue:
		args = `"jobs":` + strconv.FormatUint(ev.Arg, 10)
	case KindJobStart, KindJobEnd:
		name, tid = "job", worker+1
		ph = beginEnd(ev.Kind == KindJobStart)
	case KindWake, KindFutileWake:
		tid = worker + 1
	default:
		pid, tid = chromeWritersPID, int64(ev.Writer)
		args = `"arg":` + strconv.FormatUint(ev.Arg, 10) + `,"bytes":` + strconv.Itoa(len(ev.Payload))
	}
	if tid < 0 {
		tid = 0 // jobs.Inline runs on the collector's goroutine
	}
	if pid == chromePoolPID {
		pool[tid] = true
	} else {
		writers[ev.Writer] = true
	}
	b = append(b, `{"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"cat":"gcbench","ph":"`...)
	b = append(b, ph...)
	b = append(b, `","ts":`...)
	b = strconv.AppendFloat(b, float64(ev.Time)/1e3, 'f', 3, 64)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	if ph == "i" {
		b = append(b, `,"s":"t"`...)
	}
	b = append(b, `,"args":{"writer":`...)
	b = strconv.AppendUint(b, uint64(ev.Writer), 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, ev.Seq, 10)
	if args != "" {
		b = append(b, ',')
		b = append(b, args...)
	}
	return append(b, "}}"...)
}

// chromeMetadata names the processes and tracks that appeared.
func chromeMetadata(pool map[int64]bool, writers map[uint32]bool) []string {
	meta := func(pid int, tid int64, kind, name string) string {
		return fmt.Sprintf(`{"name":%q,"ph":"M","pid":%d,"tid":%d,"args":{"name":%q}}`, kind, pid, tid, name)
	}
	var out []string
	if len(pool) > 0 {
		out = append(out, meta(chromePoolPID, 0, "process_name", "pool"))
		tids := make([]int64, 0, len(pool))
		for t := range pool {
			tids = append(tids, t)
		}
		sort.Slice(tids, func(i, j int) bool { return tids[i] < tids[j] })
		for _, t := range tids {
			name := "collector"
			if t > 0 {
				name = fmt.Sprintf("worker %d", t-1)
			}
			out = append(out, meta(chromePoolPID, t, "thread_name", name))
		}
	}
	if len(writers) > 0 {
		out = append(out, meta(chromeWritersPID, 0, "process_name", "writers"))
		ids := make([]uint32, 0, len(writers))
		for id := range writers {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			out = append(out, meta(chromeWritersPID, int64(id), "thread_name", fmt.Sprintf("writer %d", id)))
		}
	}
	return out
}

func beginEnd(begin bool) string {
	if begin {
		return "B"
	}
	return "E"
}
