package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
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

// The Observer records a worker pool's events; the pool calls it from its
// workers (any type with JobStart/JobEnd/Enqueued/Woken/FutileWake
// methods, such as workerpool.Observer, accepts it).
func ExampleObserver() {
	var file bytes.Buffer
	s, _ := trace.NewSession(&file, trace.Options{})
	o, _ := trace.NewObserver(s, 2)
	o.CollectionStart(1)
	o.Enqueued(2)
	o.JobStart(0)
	o.JobStart(1)
	o.JobEnd(1)
	o.JobEnd(0)
	o.CollectionEnd(1)
	s.Close()

	r, _ := trace.Open(&file)
	sum, _ := trace.Summarize(r)
	fmt.Println(sum.Events, sum.ByKind[trace.KindJobStart], sum.Lost)
	// Output: 7 2 0
}

// Converting a trace for ui.perfetto.dev.
func ExampleExportChrome() {
	var file bytes.Buffer
	s, _ := trace.NewSession(&file, trace.Options{})
	o, _ := trace.NewObserver(s, 1)
	o.JobStart(0)
	o.JobEnd(0)
	s.Close()

	r, _ := trace.Open(&file)
	if err := trace.ExportChrome(os.Stdout, r); err != nil {
		fmt.Println(err)
	}
}
