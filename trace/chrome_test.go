package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"
	"time"
)

// poolObserver is workerpool.Observer as CONTRACTS.md fixes it, copied
// here because trace must not import workerpool: *Observer must satisfy it.
type poolObserver interface {
	JobStart(worker int)
	JobEnd(worker int)
	Enqueued(n int)
	Woken(worker int)
	FutileWake(worker int)
}

var _ poolObserver = (*Observer)(nil)

// observedSession records two collections of a 3-worker pool, with one
// inline job, plus one user event, and returns the trace.
func observedSession(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	s, err := NewSession(&buf, Options{FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewObserver(s, 3)
	if err != nil {
		t.Fatal(err)
	}
	for gc := uint64(1); gc <= 2; gc++ {
		o.CollectionStart(gc)
		o.Enqueued(7)
		o.JobStart(-1) // jobs.Inline
		o.JobEnd(-1)
		for w := 0; w < 3; w++ {
			o.Woken(w)
			o.JobStart(w)
			o.JobEnd(w)
			o.JobStart(w)
			o.JobEnd(w)
		}
		o.FutileWake(2)
		o.CollectionEnd(gc)
	}
	uw, _ := s.NewWriter()
	uw.Write(KindUser+3, 42, []byte("hello \"perfetto\"\n"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestObserverEvents: the adapter writes what the pool reports, on the
// writer of the worker concerned.
func TestObserverEvents(t *testing.T) {
	evs, r := readAll(t, observedSession(t))
	kinds := map[Kind]int{}
	for _, ev := range evs {
		kinds[ev.Kind]++
		if (ev.Kind == KindJobStart || ev.Kind == KindWake) && int64(ev.Arg) >= 0 && ev.Writer != uint32(ev.Arg) {
			t.Fatalf("worker %d's event %v on writer %d", ev.Arg, ev.Kind, ev.Writer)
		}
	}
	want := map[Kind]int{KindCollectionStart: 2, KindCollectionEnd: 2, KindEnqueue: 2, KindJobStart: 14, KindJobEnd: 14,
		KindWake: 6, KindFutileWake: 2, KindUser + 3: 1}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if _, lost := r.Totals(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
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
	if err := ExportChrome(&out, r); err != nil {
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
	want := map[string]int{"B collection": 2, "E collection": 2, "i enqueue": 2, "B job": 14, "E job": 14,
		"i wake": 6, "i futile-wake": 2, "i user+3": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("exported %v, want %v", counts, want)
	}
	if len(used) != 5 { // collector (with the inline jobs), 3 workers, 1 user writer
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
	if err := ExportChrome(&out, r); err != nil {
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
	if err := ExportChrome(io.Discard, r); !errors.Is(err, ErrCorrupt) {
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
	if s.Events != 5 || s.Lost != 3 || s.ByKind[KindJobStart] != 1 || s.ByKind[KindUser+1] != 1 || s.First != 10 || s.Last != 30 || s.Payload != 13 {
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
