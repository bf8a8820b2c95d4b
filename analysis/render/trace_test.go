package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/trace"
)

// startOr names kind 2 "start", as gcsim names its kinds, and the others
// by trace's names.
func startOr(k trace.Kind) string {
	if k == 2 {
		return "start"
	}
	return k.String()
}

func traceSummary() TraceSummary {
	return TraceSummary{File: "run.gctrace", KindName: startOr,
		Summary: trace.Summary{
			Header: trace.Header{Version: 1, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			Events: 30, Lost: 10, ByKind: map[trace.Kind]uint64{2: 20, trace.KindUser: 10},
			Writers: []trace.WriterCounts{{Writer: 0, Read: 30, Lost: 10, Written: 40}},
			First:   time.Millisecond, Last: 3 * time.Millisecond, Payload: 64,
		}}
}

// TestTraceSummaryTable: a row per kind in kind order, by the caller's
// names, then the totals; the title's figures; no warning for a whole
// trace.
func TestTraceSummaryTable(t *testing.T) {
	var b bytes.Buffer
	if err := traceSummary().Table().Write(&b, Text); err != nil {
		t.Fatal(err)
	}
	want := "run.gctrace: trace format v1, session started 2026-01-02 03:04:05Z, 1 writers, events span 2ms, 25.00% lost\n\n" +
		"kind        events\n" +
		"start           20\n" +
		"user+0          10\n" +
		"total read      30\n" +
		"lost            10\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestTraceSummaryWarnsOfALowerBound: a truncated trace and a corrupt one
// each get a warning fact saying what the counts cover.
func TestTraceSummaryWarnsOfALowerBound(t *testing.T) {
	s := traceSummary()
	s.KindName = nil // trace's own names for every kind
	s.Summary.Truncated, s.Summary.TruncatedAt = true, 4096
	s.Corrupt = errors.New("trace: corrupt at byte 99")
	tab := s.Table()
	if got := tab.Rows[0][0]; got != "kind(2)" {
		t.Errorf("without KindName kind 2 is named %q, want trace's kind(2)", got)
	}
	var keys []string
	for _, f := range tab.Facts {
		keys = append(keys, f.Key)
		if !f.Warning || !strings.Contains(f.Value, "lost is a lower bound") {
			t.Errorf("fact %+v: want a warning that lost is a lower bound", f)
		}
	}
	if !slices.Equal(keys, []string{"TRUNCATED", "CORRUPT"}) {
		t.Errorf("facts %v", keys)
	}
	if !strings.Contains(tab.Facts[0].Value, "at byte 4096") || !strings.HasPrefix(tab.Facts[1].Value, "trace: corrupt at byte 99;") {
		t.Errorf("facts %+v", tab.Facts)
	}
}

// TestTraceSummaryJSON: every figure, kinds by name, keys in the order
// earlier versions wrote them, and "corrupt" only for a corrupt trace.
func TestTraceSummaryJSON(t *testing.T) {
	s := traceSummary()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"by_kind":{"start":20,"user+0":10},"events":30,"file":"run.gctrace","first_ns":1000000,"last_ns":3000000,"lost":10,` +
		`"payload_bytes":64,"start":"2026-01-02T03:04:05Z","truncated":false,"truncated_at":0,"version":1,` +
		`"writers":[{"Writer":0,"Read":30,"Lost":10,"Written":40}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	s.Corrupt = errors.New("bad block")
	if b, _ = json.Marshal(s); !strings.HasPrefix(string(b), `{"by_kind":{"start":20,"user+0":10},"corrupt":"bad block","events":30,`) {
		t.Errorf("corrupt: %s", b)
	}
}
