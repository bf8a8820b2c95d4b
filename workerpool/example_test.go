package workerpool_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool"
)

// Per-job dispatch: each Enqueue takes the queue lock and wakes workers once.
func ExamplePool_Enqueue() {
	p, err := workerpool.New(workerpool.Options{Workers: 4})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	var sum atomic.Int64
	for i := 1; i <= 10; i++ {
		if err := p.Enqueue(jobs.Func(func(int) { sum.Add(int64(i)) })); err != nil {
			panic(err)
		}
	}
	if err := p.Join(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(sum.Load())
	// Output: 55
}

// A func job without a per-job allocation: the func is built once and its
// state lives in a slice, so each EnqueueFunc stores the same func value.
func ExamplePool_EnqueueFunc() {
	p, err := workerpool.New(workerpool.Options{Workers: 4})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	var next atomic.Int64
	squares := make([]int64, 8)
	square := func(int) { // claims the next index: no captured loop variable
		i := next.Add(1) - 1
		squares[i] = i * i
	}
	for range squares {
		if err := p.EnqueueFunc(square); err != nil {
			panic(err)
		}
	}
	if err := p.Join(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

// Batch dispatch: one lock acquisition and one wake call for all jobs. The
// slice can be reused as soon as EnqueueBatch returns.
func ExamplePool_EnqueueBatch() {
	p, err := workerpool.New(workerpool.Options{Workers: 4, Wake: workerpool.Targeted})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	const total = 1000
	var scanned atomic.Int64
	parts := jobs.SplitCount(p.Workers())
	batch := make([]jobs.Job, parts)
	for i := range batch {
		batch[i] = jobs.Func(func(int) {
			lo, hi := jobs.Range(total, parts, i)
			scanned.Add(int64(hi - lo))
		})
	}
	before := p.Stats()
	if err := p.EnqueueBatch(batch); err != nil {
		panic(err)
	}
	if err := p.Join(context.Background()); err != nil {
		panic(err)
	}
	d := p.Stats().Sub(before)
	fmt.Println(scanned.Load(), d.TotalJobsRun(), d.EnqueueLockAcquisitions)
	// Output: 1000 16 1
}

// A gated round as SGen runs a minor collection: queue the jobs while the
// workers may not start, open the gate, wait. Join closes the gate again.
func ExamplePool_Start() {
	p, err := workerpool.New(workerpool.Options{
		Workers: 8,
		Backend: workerpool.Goroutines,
		Wake:    workerpool.Broadcast,
		Gated:   true,
	})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	var ran atomic.Int64
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = jobs.Func(func(int) { ran.Add(1) })
	}
	for round := 0; round < 3; round++ {
		before := p.Stats()
		if err := p.EnqueueBatch(batch); err != nil {
			panic(err)
		}
		p.Start()
		if err := p.Join(context.Background()); err != nil {
			panic(err)
		}
		d := p.Stats().Sub(before)
		fmt.Printf("round %d: %d jobs, %d enqueue lock, %d enqueue wake\n",
			round, d.TotalJobsRun(), d.EnqueueLockAcquisitions, d.EnqueueWakeCalls)
	}
	fmt.Println(ran.Load())
	// Output:
	// round 0: 65 jobs, 1 enqueue lock, 1 enqueue wake
	// round 1: 65 jobs, 1 enqueue lock, 1 enqueue wake
	// round 2: 65 jobs, 1 enqueue lock, 1 enqueue wake
	// 195
}

// The same gated round twice: EnqueueBatch then Start, as SGen's fix ran
// it, wakes the workers twice, the first time behind the closed gate;
// StartBatch queues the batch and opens the gate under one lock
// acquisition, with one wake.
func ExamplePool_StartBatch() {
	p, err := workerpool.New(workerpool.Options{
		Workers: 8,
		Backend: workerpool.Goroutines,
		Wake:    workerpool.Broadcast,
		Gated:   true,
	})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	var ran atomic.Int64
	batch := make([]jobs.Job, 65)
	for i := range batch {
		batch[i] = jobs.Func(func(int) { ran.Add(1) })
	}
	round := func(queueAndStart func() error) workerpool.Stats {
		before := p.Stats()
		if err := queueAndStart(); err != nil {
			panic(err)
		}
		if err := p.Join(context.Background()); err != nil {
			panic(err)
		}
		return p.Stats().Sub(before)
	}
	two := round(func() error {
		err := p.EnqueueBatch(batch)
		p.Start()
		return err
	})
	one := round(func() error { return p.StartBatch(batch) })
	fmt.Printf("EnqueueBatch, Start: %d jobs, %d wake calls\n", two.TotalJobsRun(), two.WakeCalls)
	fmt.Printf("StartBatch:          %d jobs, %d wake call\n", one.TotalJobsRun(), one.WakeCalls)
	// Output:
	// EnqueueBatch, Start: 65 jobs, 2 wake calls
	// StartBatch:          65 jobs, 1 wake call
}
