package gcsim_test

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// Compare per-job and batched dispatch on a small heap, interleaved.
func ExampleCompare() {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Nursery = 16<<20, 8<<20, 256<<10
	cfg.Workers, cfg.Backend = 2, workerpool.Goroutines
	cfg.Mutator.BarrierStores, cfg.Mutator.Published = 400, 20
	cfg.Mutator.MaxLargeObject = 32 << 10
	res, err := gcsim.Compare(context.Background(), cfg, gcsim.CompareOptions{
		Modes: []gcsim.Mode{gcsim.PerJob, gcsim.Batch}, GCs: 20, Warmup: 5,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Modes {
		r := m.Records[0]
		fmt.Printf("%s: %d collections, %d jobs each, %d enqueue lock acquisition(s)\n",
			m.Mode, len(m.Records), r.Jobs, r.Pool.EnqueueLockAcquisitions)
	}
	// Output:
	// perjob: 20 collections, 17 jobs each, 17 enqueue lock acquisition(s)
	// batch: 20 collections, 17 jobs each, 1 enqueue lock acquisition(s)
}

// smallConfig is a heap small enough for an example.
func smallConfig() gcsim.Config {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Nursery = 16<<20, 8<<20, 256<<10
	cfg.Workers, cfg.Backend = 2, workerpool.Goroutines
	cfg.Mutator.BarrierStores, cfg.Mutator.Published = 400, 20
	cfg.Mutator.MaxLargeObject = 32 << 10
	return cfg
}

// Every job of a collection reports which worker ran it and when; the
// record summarizes them as per-job durations and load imbalance.
func ExampleSim_Completions() {
	s, err := gcsim.New(smallConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Mutate(); err != nil {
		fmt.Println(err)
		return
	}
	rec, err := s.Collect(gcsim.Batch)
	if err != nil {
		fmt.Println(err)
		return
	}
	jobs, onPool := map[int]bool{}, 0
	for _, c := range s.Completions() {
		jobs[c.JobIndex] = true
		if c.Worker >= 0 && !c.End.Before(c.Start) {
			onPool++
		}
	}
	fmt.Println(len(s.Completions()), len(jobs), onPool, rec.JobWorkers <= 2, rec.Imbalance >= 1)
	// Output: 17 17 17 true true
}

// Tracing a comparison: collections and every job of every mode land in a
// trace.Session, which gcbench trace summarizes or converts for Perfetto.
func ExampleConfig_trace() {
	var file bytes.Buffer
	sess, err := trace.NewSession(&file, trace.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := smallConfig()
	cfg.Trace = sess
	_, err = gcsim.Compare(context.Background(), cfg, gcsim.CompareOptions{
		Modes: []gcsim.Mode{gcsim.Serial, gcsim.Batch}, GCs: 2})
	if cerr := sess.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := trace.Open(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := trace.Summarize(r)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.ByKind[gcsim.TraceCollectionStart], sum.ByKind[gcsim.TraceJobStart], sum.Lost)
	// Output: 4 68 0
}

// A TraceObserver records what a pool and a collector report; a trace's
// kinds are named with TraceKindName, and its Perfetto export is laid out
// by ChromeTracks.
func ExampleTraceObserver() {
	var file bytes.Buffer
	sess, _ := trace.NewSession(&file, trace.Options{})
	o, err := gcsim.NewTraceObserver(sess, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	o.CollectionStart(1, gcsim.Batch)
	o.Enqueued(2)
	o.JobStart(0)
	o.JobStart(1)
	o.JobEnd(1)
	o.JobEnd(0)
	o.CollectionEnd(1, gcsim.Batch)
	sess.Close()

	r, _ := trace.Open(bytes.NewReader(file.Bytes()))
	sum, _ := trace.Summarize(r)
	for _, k := range []trace.Kind{gcsim.TraceCollectionStart, gcsim.TraceEnqueue, gcsim.TraceJobStart} {
		fmt.Println(gcsim.TraceKindName(k), sum.ByKind[k])
	}
	r, _ = trace.Open(bytes.NewReader(file.Bytes()))
	fmt.Println(trace.ExportChrome(io.Discard, r, gcsim.ChromeTracks{}))
	// Output:
	// collection-start 1
	// enqueue 1
	// job-start 2
	// <nil>
}
