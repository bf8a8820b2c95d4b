package render

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gcbench/gcbench/trace"
)

// A TraceSummary is a trace file's summary (trace.Summarize) as gcbench
// shows it: as a table (Table), a row per event kind then the totals, or
// as a JSON document (MarshalJSON) of every figure. Package trace knows no
// kind's meaning, so the caller names them (KindName); damage the reading
// stopped at (Corrupt) is shown beside the counts before it, which are
// then, like a truncated trace's, a lower bound.
type TraceSummary struct {
	File    string // the trace file's name, as the user gave it
	Summary trace.Summary
	// KindName names an event kind; nil names it by trace.Kind's String.
	KindName func(trace.Kind) string
	// Corrupt is the damage the reading stopped at (trace.ErrCorrupt), or
	// nil for a trace read to its end.
	Corrupt error
}

func (t TraceSummary) kindName(k trace.Kind) string {
	if t.KindName == nil {
		return k.String()
	}
	return t.KindName(k)
}

// Table is the summary as a table: a row per kind in kind order, then
// the events read and lost; its title says the format version, the
// session's start, the writers, the span and the share lost, and a
// warning fact says when the counts are a lower bound (a truncated or a
// corrupt trace).
func (t TraceSummary) Table() *Table {
	s := t.Summary
	var rows [][]string
	for _, k := range s.Kinds() {
		rows = append(rows, []string{t.kindName(k), fmt.Sprint(s.ByKind[k])})
	}
	rows = append(rows, []string{"total read", fmt.Sprint(s.Events)}, []string{"lost", fmt.Sprint(s.Lost)})
	title := fmt.Sprintf("%s: trace format v%d, session started %s, %d writers, events span %v, %.2f%% lost",
		t.File, s.Header.Version, s.Header.Start.UTC().Format("2006-01-02 15:04:05Z"), len(s.Writers), s.Last-s.First, s.LostShare())
	table := &Table{Title: title, Header: [][]string{{"kind", "events"}}, Rows: rows}
	if s.Truncated {
		table.Facts = append(table.Facts, Fact{Key: "TRUNCATED", Warning: true, Value: fmt.Sprintf("the trace ends at byte %d "+
			"without its end block (its session did not finish); the counts cover its complete blocks, and lost is a lower bound", s.TruncatedAt)})
	}
	if t.Corrupt != nil {
		table.Facts = append(table.Facts, Fact{Key: "CORRUPT", Warning: true, Value: t.Corrupt.Error() +
			"; the counts cover the events before the damage, and lost is a lower bound"})
	}
	return table
}

// traceSummaryJSON is TraceSummary's JSON document; its fields are in
// alphabetical order, as earlier versions wrote them (from a map).
type traceSummaryJSON struct {
	ByKind      map[string]uint64    `json:"by_kind"`
	Corrupt     string               `json:"corrupt,omitempty"`
	Events      uint64               `json:"events"`
	File        string               `json:"file"`
	FirstNS     int64                `json:"first_ns"`
	LastNS      int64                `json:"last_ns"`
	Lost        uint64               `json:"lost"`
	Payload     uint64               `json:"payload_bytes"`
	Start       time.Time            `json:"start"`
	Truncated   bool                 `json:"truncated"`
	TruncatedAt int64                `json:"truncated_at"`
	Version     int                  `json:"version"`
	Writers     []trace.WriterCounts `json:"writers"`
}

// MarshalJSON writes every figure of the summary, the events per kind
// by kind name, and the damage if the trace is corrupt.
func (t TraceSummary) MarshalJSON() ([]byte, error) {
	s := t.Summary
	doc := traceSummaryJSON{ByKind: map[string]uint64{}, Events: s.Events, File: t.File,
		FirstNS: s.First.Nanoseconds(), LastNS: s.Last.Nanoseconds(), Lost: s.Lost, Payload: s.Payload, Start: s.Header.Start,
		Truncated: s.Truncated, TruncatedAt: s.TruncatedAt, Version: s.Header.Version, Writers: s.Writers}
	for _, k := range s.Kinds() {
		doc.ByKind[t.kindName(k)] = s.ByKind[k]
	}
	if t.Corrupt != nil {
		doc.Corrupt = t.Corrupt.Error()
	}
	return json.Marshal(doc)
}
