package trace_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/gcbench/gcbench/trace"
)

// A session with two writer goroutines, streamed to a buffer and read back.
func Example() {
	var file bytes.Buffer
	s, err := trace.NewSession(&file, trace.Options{Limit: 1 << 20})
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		w, _ := s.NewWriter() // one Writer per goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				w.Write(trace.KindUser, uint64(i), []byte("hello"))
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil { // drains every buffer and ends the stream
		panic(err)
	}

	r, err := trace.Open(&file)
	if err != nil {
		panic(err)
	}
	n := 0
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if ev.Kind == trace.KindUser && string(ev.Payload) == "hello" {
			n++
		}
	}
	read, lost := r.Totals()
	fmt.Println(n, read, lost)
	// Output: 6 6 0
}

// requestBegin, requestEnd and retry are a program's own event kinds: a request's
// begin and end on the track of its connection (the event's Arg), and a
// retry.
const (
	requestBegin trace.Kind = 2 + iota
	requestEnd
	retry
)

// connTracks lays out the program's events for Perfetto: one track per
// connection, requests as slices, retries as instants, anything else on its
// writer's track.
type connTracks struct{}

func (connTracks) Place(ev trace.Event) trace.ChromePlace {
	tr := trace.ChromeTrack{PID: 1, TID: int64(ev.Arg)}
	switch ev.Kind {
	case requestBegin:
		return trace.ChromePlace{Track: tr, Phase: trace.ChromeBegin}
	case requestEnd:
		return trace.ChromePlace{Track: tr, Phase: trace.ChromeEnd}
	case retry:
		return trace.ChromePlace{Track: tr, Phase: trace.ChromeInstant}
	}
	return trace.WriterTracks{PID: 2}.Place(ev)
}

func (connTracks) AppendName(b []byte, ev trace.Event) []byte {
	switch ev.Kind {
	case requestBegin, requestEnd:
		return append(b, "request"...)
	case retry:
		return append(b, "retry"...)
	}
	return trace.WriterTracks{}.AppendName(b, ev)
}

func (connTracks) ProcessName(pid int) string {
	if pid == 1 {
		return "connections"
	}
	return trace.WriterTracks{}.ProcessName(pid)
}

func (connTracks) ThreadName(tr trace.ChromeTrack) string {
	if tr.PID == 1 {
		return fmt.Sprintf("connection %d", tr.TID)
	}
	return trace.WriterTracks{}.ThreadName(tr)
}

// Converting a trace for ui.perfetto.dev, with a mapping that knows what
// the program's kinds mean.
func ExampleExportChrome() {
	var file bytes.Buffer
	s, _ := trace.NewSession(&file, trace.Options{})
	w, _ := s.NewWriter()
	w.Write(requestBegin, 7, nil)
	w.Write(retry, 7, nil)
	w.Write(requestEnd, 7, nil)
	s.Close()

	r, _ := trace.Open(&file)
	var out bytes.Buffer
	if err := trace.ExportChrome(&out, r, connTracks{}); err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			TID      int64
			Args     struct{ Name string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		fmt.Println(err)
		return
	}
	for _, ev := range doc.TraceEvents {
		if ev.Ph == "M" { // metadata: the name is in args
			fmt.Println(ev.Ph, ev.TID, ev.Name, ev.Args.Name)
			continue
		}
		fmt.Println(ev.Ph, ev.TID, ev.Name)
	}
	// Output:
	// B 7 request
	// i 7 retry
	// E 7 request
	// M 0 process_name connections
	// M 7 thread_name connection 7
}

// Counting a trace's events per kind; the names of kinds are their
// writer's to give.
func ExampleSummarize() {
	var file bytes.Buffer
	s, _ := trace.NewSession(&file, trace.Options{})
	w, _ := s.NewWriter()
	for conn := range uint64(3) {
		w.Write(requestBegin, conn, nil)
		w.Write(requestEnd, conn, nil)
	}
	w.Write(retry, 1, nil)
	s.Close()

	r, _ := trace.Open(&file)
	sum, _ := trace.Summarize(r)
	fmt.Println(sum.Events, sum.ByKind[requestBegin], sum.ByKind[retry], sum.Lost)
	// Output: 7 3 1 0
}
