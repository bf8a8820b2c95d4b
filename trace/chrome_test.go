package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// observedSession records, on writers 0..2, two rounds of nested spans and
// a mark on the writer's own track (testTracks), and on writer 3 one
// ad-hoc event and one stress event, and returns the trace.
func observedSession(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	s, err := NewSession(&buf, Options{FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var ws [4]*Writer
	for i := range ws {
		if ws[i], err = s.NewWriter(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for i, w := range ws[:3] {
			tr := uint64(i)
			w.Write(kindBegin, tr, nil)
			w.Write(kindMark, tr, nil)
			w.Write(kindBegin, tr, nil)
			w.Write(kindEnd, tr, nil)
			w.Write(kindEnd, tr, nil)
		}
	}
	ws[3].Write(KindUser+3, 42, []byte("hello \"perfetto\"\n"))
	ws[3].Write(KindStress, 0, []byte("filler"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestChromeExportSchema validates the export against the Trace Event
// Format rules that Perfetto's and chrome://tracing's JSON importers rely
// on: a JSON object with a traceEvents array; every event has a name, a
// known phase, integer pid/tid, and (except metadata) a non-negative
// numeric ts in microseconds; instant events have a scope; metadata names
// every process and thread used; B/E slices nest properly per thread and
// close in time order.
func TestChromeExportSchema(t *testing.T) {
	data := observedSession(t)
	r, err := Open(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ExportChrome(&out, r, testTracks{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("export is not a JSON object: %v\n%s", err, out.String())
	}
	var unit string
	if err := json.Unmarshal(doc["displayTimeUnit"], &unit); err != nil || (unit != "ns" && unit != "ms") {
		t.Fatalf("displayTimeUnit %s", doc["displayTimeUnit"])
	}
	var events []map[string]any
	d := json.NewDecoder(bytes.NewReader(doc["traceEvents"]))
	d.UseNumber()
	if err := d.Decode(&events); err != nil {
		t.Fatalf("traceEvents: %v", err)
	}
	type track struct{ pid, tid int64 }
	named := map[track]bool{}
	processes := map[int64]bool{}
	used := map[track]bool{}
	stacks := map[track][]string{}
	lastTS := map[track]float64{}
	integer := func(ev map[string]any, k string) int64 {
		n, ok := ev[k].(json.Number)
		if !ok {
			t.Fatalf("event %v: %s is not a number", ev, k)
		}
		i, err := n.Int64()
		if err != nil {
			t.Fatalf("event %v: %s is not an integer", ev, k)
		}
		return i
	}
	counts := map[string]int{}
	for _, ev := range events {
		name, ok := ev["name"].(string)
		ph, ok2 := ev["ph"].(string)
		if !ok || !ok2 || name == "" {
			t.Fatalf("event %v lacks name or ph", ev)
		}
		tr := track{integer(ev, "pid"), integer(ev, "tid")}
		args, _ := ev["args"].(map[string]any)
		if args == nil {
			t.Fatalf("event %v has no args object", ev)
		}
		if ph == "M" {
			label, _ := args["name"].(string)
			switch {
			case label == "":
				t.Fatalf("metadata %v without args.name", ev)
			case name == "process_name":
				processes[tr.pid] = true
			case name == "thread_name":
				named[tr] = true
			default:
				t.Fatalf("unexpected metadata %q", name)
			}
			continue
		}
		tsn, ok := ev["ts"].(json.Number)
		if !ok {
			t.Fatalf("event %v: ts missing", ev)
		}
		ts, err := tsn.Float64()
		if err != nil || ts < 0 || math.IsNaN(ts) {
			t.Fatalf("event %v: bad ts", ev)
		}
		used[tr] = true
		counts[ph+" "+name]++
		switch ph {
		case "B":
			stacks[tr] = append(stacks[tr], name)
		case "E":
			st := stacks[tr]
			if len(st) == 0 || st[len(st)-1] != name {
				t.Fatalf("E %q on %v does not close the open slice (open: %v)", name, tr, st)
			}
			stacks[tr] = st[:len(st)-1]
		case "i":
			if s := ev["s"]; s != "t" && s != "p" && s != "g" {
				t.Fatalf("instant %v: scope %v", ev, s)
			}
		default:
			t.Fatalf("unexpected phase %q", ph)
		}
		if ts < lastTS[tr] {
			t.Fatalf("track %v: ts %v after %v", tr, ts, lastTS[tr])
		}
		lastTS[tr] = ts
	}
	for tr := range used {
		if !named[tr] || !processes[tr.pid] {
			t.Errorf("track %v has no thread_name or process_name", tr)
		}
		if len(stacks[tr]) != 0 {
			t.Errorf("track %v: slices left open: %v", tr, stacks[tr])
		}
	}
	want := map[string]int{"B span": 12, "E span": 12, "i mark": 6, "i user+3": 1, "i stress": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("exported %v, want %v", counts, want)
	}
	if len(used) != 4 { // tracks 0..2 of process 1, writer 3's track of process 2
		t.Fatalf("tracks %v", used)
	}
}

// TestChromeExportDamagedTrace: a truncated trace exports what it holds
// as a valid document; a corrupt one is an error wrapping ErrCorrupt.
func TestChromeExportDamagedTrace(t *testing.T) {
	data := observedSession(t)
	r, err := Open(bytes.NewReader(data[:len(data)-10]))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ExportChrome(&out, r, testTracks{}); err != nil {
		t.Fatalf("exporting a truncated trace: %v", err)
	}
	if !r.Truncated() || !json.Valid(out.Bytes()) {
		t.Fatalf("truncated %v, valid JSON %v", r.Truncated(), json.Valid(out.Bytes()))
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 1
	if r, err = Open(bytes.NewReader(flipped)); err != nil {
		t.Fatal(err)
	}
	if err := ExportChrome(io.Discard, r, testTracks{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("exporting a corrupt trace: %v, want ErrCorrupt", err)
	}
}

func TestSummarize(t *testing.T) {
	r, err := Open(bytes.NewReader(goodFile()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	if s.Events != 5 || s.Lost != 3 || s.ByKind[kindBegin] != 1 || s.ByKind[KindUser+1] != 1 || s.First != 10 || s.Last != 30 || s.Payload != 13 {
		t.Fatalf("summary %+v", s)
	}
}

// TestSummarizeTruncated: a cut trace is summarized as far as it goes and
// says so; the counts are those of its complete blocks.
func TestSummarizeTruncated(t *testing.T) {
	good := goodFile()
	end := len(endBlock(endEntry{0, 5}, endEntry{1, 3}))
	r, err := Open(bytes.NewReader(good[:len(good)-end+5]))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || s.TruncatedAt != int64(len(good)-end) || s.Events != 5 || s.Lost != 1 || len(s.Writers) != 2 {
		t.Fatalf("summary %+v: want 5 events, 1 lost below the cut at byte %d", s, len(good)-end)
	}
	if r, _ = Open(bytes.NewReader(good)); r == nil {
		t.Fatal("Open failed")
	}
	if s, err = Summarize(r); err != nil || s.Truncated || s.TruncatedAt != 0 {
		t.Fatalf("complete trace: %+v, %v", s, err)
	}
}

// TestChromeExportMemoryBounded exports a 24 MiB trace generated through a
// pipe and checks that everything the process allocated meanwhile stays
// under a bound that is independent of the trace's size: per-event
// allocations (a name or argument string per event) or per-event state
// would exceed it many times over.
func TestChromeExportMemoryBounded(t *testing.T) {
	const bound = 2 << 20
	mix := []Kind{kindBegin, kindMark, kindOther, kindBegin, kindEnd, kindMark, kindEnd,
		KindStress, KindUser, KindUser + 7, KindUser + 100, 999}
	g := synthetic{size: 24 << 20, writers: 9, perBlock: 500, payload: 40, event: func(i uint64) (Kind, uint64) {
		return mix[i%uint64(len(mix))], i % 8
	}}
	pr, wait := g.stream()
	defer wait()
	r, err := Open(pr)
	if err != nil {
		t.Fatal(err)
	}
	var out countingWriter
	alloc := heapAllocated(func() { err = ExportChrome(&out, r, testTracks{}) })
	if err != nil {
		t.Fatal(err)
	}
	read, _ := r.Totals()
	if n := wait(); read != n || read < 300_000 {
		t.Fatalf("exported %d events of %d", read, n)
	}
	t.Logf("%v: %d events, %d MiB of JSON, %d KiB allocated", g, read, out.n>>20, alloc>>10)
	if alloc > bound {
		t.Fatalf("export of %d events allocated %d bytes, want at most %d whatever the trace's size", read, alloc, bound)
	}
}

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// TestChromeExportTooManyTracks: a crafted trace whose every event names a
// new track fails with ErrTooManyTracks after
// MaxChromeTracks tracks, having read only the start of the trace and
// allocated a bounded amount, instead of keeping state per event.
func TestChromeExportTooManyTracks(t *testing.T) {
	g := synthetic{size: 16 << 20, writers: 1, perBlock: 1000, event: func(i uint64) (Kind, uint64) { return kindMark, i }}
	pr, wait := g.stream()
	defer wait()
	r, err := Open(pr)
	if err != nil {
		t.Fatal(err)
	}
	alloc := heapAllocated(func() { err = ExportChrome(io.Discard, r, testTracks{}) })
	if !errors.Is(err, ErrTooManyTracks) || !strings.Contains(err.Error(), fmt.Sprint(MaxChromeTracks)) {
		t.Fatalf("got %v, want ErrTooManyTracks naming the cap", err)
	}
	total := uint64(g.size / int64(recordSize(0)))
	if n := wait(); n > total/10 {
		t.Fatalf("the export read %d of about %d events before failing", n, total)
	}
	if alloc > 8<<20 {
		t.Fatalf("allocated %d bytes for %d tracks", alloc, MaxChromeTracks)
	}
	t.Log(err, alloc>>10, "KiB allocated")
}

// TestChromeExportTruncated: the export of a cut trace says so in its
// otherData, after the events, and is otherwise the export of the events
// before the cut.
func TestChromeExportTruncated(t *testing.T) {
	data := observedSession(t)
	for _, c := range []struct {
		data      []byte
		truncated bool
	}{{data, false}, {data[:len(data)-10], true}} {
		r, err := Open(bytes.NewReader(c.data))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := ExportChrome(&out, r, testTracks{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []json.RawMessage `json:"traceEvents"`
			OtherData   struct {
				Truncated bool   `json:"truncated"`
				At        *int64 `json:"truncated_at_byte"`
			} `json:"otherData"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		read, _ := r.Totals()
		if doc.OtherData.Truncated != c.truncated || (doc.OtherData.At != nil) != c.truncated || len(doc.TraceEvents) <= int(read) {
			t.Fatalf("truncated %v: otherData %+v, %d trace events for %d events read", c.truncated, doc.OtherData, len(doc.TraceEvents), read)
		}
		if !bytes.HasPrefix(out.Bytes(), []byte(`{"traceEvents":[`)) {
			t.Fatalf("traceEvents is not the first key: %.40s", out.Bytes())
		}
	}
}

// TestChromeTimestamps: microseconds with exactly three decimals, exact
// beyond float64's 2^53.
func TestChromeTimestamps(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 7: "0.007", 1234: "1.234", 1_000_010: "1000.010", math.MaxInt64: "9223372036854775.807"} {
		if got := string(appendMicros(nil, ns)); got != want {
			t.Errorf("appendMicros(%d) = %s, want %s", ns, got, want)
		}
	}
}

// TestKindNames: trace names only its own kinds and the ad-hoc range; String
// and the allocation-free appendName agree.
func TestKindNames(t *testing.T) {
	for k, want := range map[Kind]string{KindStress: "stress", KindUser: "user+0", KindUser + 12: "user+12",
		0: "kind(0)", 2: "kind(2)", 999: "kind(999)", KindUser - 1: "kind(1023)"} {
		if k.String() != want || string(k.appendName([]byte("x"))) != "x"+want {
			t.Errorf("Kind %d: String %q, appendName %q; want %q", uint16(k), k.String(), k.appendName(nil), want)
		}
	}
}

// TestChromeExportNilMapping: without a mapping every event is an instant
// on its writer's track, named by its kind, with its Arg and payload size.
func TestChromeExportNilMapping(t *testing.T) {
	r, err := Open(bytes.NewReader(observedSession(t)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ExportChrome(&out, r, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			PID      int
			TID      int64
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, ev := range doc.TraceEvents {
		if ev.Ph == "M" {
			names[ev.Args["name"].(string)]++
			continue
		}
		if ev.Ph != "i" || ev.PID != 1 || ev.Args["arg"] == nil || ev.Args["bytes"] == nil {
			t.Fatalf("event %+v: want an instant of process 1 with arg and bytes", ev)
		}
	}
	want := map[string]int{"writers": 1, "writer 0": 1, "writer 1": 1, "writer 2": 1, "writer 3": 1}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("metadata names %v, want %v", names, want)
	}
}

// TestChromeNamesAreEscaped: whatever a mapping names its events, tracks
// and processes, the export is JSON that decodes to those names, invalid
// UTF-8 replaced as encoding/json replaces it.
func TestChromeNamesAreEscaped(t *testing.T) {
	for _, name := range []string{"plain", `quote " and \ backslash`, "line\nfeed\ttab\x00nul\x1f", "héllo ☃ 𝄞",
		"bad \xff\xfe utf-8 \xe2\x82", "\u2028\u2029</script>", ""} {
		got := appendJSONString(nil, name)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", name, got, err)
		}
		ref, _ := json.Marshal(name)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if back != want {
			t.Errorf("%q: decodes to %q, want %q", name, back, want)
		}
		if b := appendJSONString(nil, []byte(name)); !bytes.Equal(b, got) {
			t.Errorf("%q: bytes %s, string %s", name, b, got)
		}
	}
}

// FuzzExportChrome: any input either fails with a sentinel error or
// exports a valid JSON document that says whether the trace was truncated.
func FuzzExportChrome(f *testing.F) {
	f.Add(goodFile())
	f.Add(goodFile()[:200])
	f.Add(seqMaxEndZero())
	f.Add(cat(fileHeader(Version), evBlock(3, rec{t: 1, seq: 0, kind: kindBegin, arg: math.MaxUint64},
		rec{t: 2, seq: 1, kind: kindEnd, arg: math.MaxInt64}, rec{t: 3, seq: 2, kind: KindUser + 9, payload: []byte(`"\`)})))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := ExportChrome(&out, r, testTracks{}); err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooManyTracks) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		var doc struct {
			TraceEvents []map[string]any `json:"traceEvents"`
			OtherData   struct {
				Truncated bool `json:"truncated"`
			} `json:"otherData"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("export is not JSON: %v\n%s", err, out.Bytes())
		}
		if doc.OtherData.Truncated != r.Truncated() {
			t.Fatalf("otherData.truncated %v, reader says %v", doc.OtherData.Truncated, r.Truncated())
		}
	})
}

// phaseMapping places every event with a fixed phase.
type phaseMapping struct {
	WriterTracks
	phase ChromePhase
}

func (m phaseMapping) Place(ev Event) ChromePlace {
	p := m.WriterTracks.Place(ev)
	p.Phase = m.phase
	return p
}

// TestChromeExportRefusesAnUnknownPhase: a place whose phase is none of
// the three (a zero ChromePlace's, a quote that would end the JSON string)
// fails the export instead of writing invalid JSON.
func TestChromeExportRefusesAnUnknownPhase(t *testing.T) {
	for _, phase := range []ChromePhase{0, '"', 'X'} {
		r, err := Open(bytes.NewReader(observedSession(t)))
		if err != nil {
			t.Fatal(err)
		}
		err = ExportChrome(io.Discard, r, phaseMapping{WriterTracks{PID: 1}, phase})
		if !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("phase %q: got %v, want an error wrapping ErrInvalidOptions", rune(phase), err)
		}
	}
}
