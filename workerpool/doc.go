// Package workerpool is a job-batch worker pool: N workers serve one FIFO
// queue under one mutex (or a shard per worker, Options.Queue); jobs come
// one at a time (Enqueue) or as a batch under one lock acquisition with one
// wake (EnqueueBatch); workers are goroutines, OS threads parked on futexes
// or SGen's own pool in C on pthreads (Backend); the wake policy is
// selectable (WakePolicy), and exact counters say what each dispatch cost
// (Stats).
//
// Everyday use is a Group (Pool.NewGroup) or Map on New(Options{})
// (ExamplePool_NewGroup, ExampleMap), with backpressure (Options.MaxQueued,
// TryEnqueue, EnqueueCtx) and a drain with a deadline (Shutdown). Gated
// pools, Start, StartBatch and Join are SGen's round (ExamplePool_StartBatch),
// after mono/mono#20634: a per-job broadcast behind a closed gate wakes
// every worker for nothing, and one batch with one wake cut its pauses.
//
// Every pool guarantees:
//
//   - exactly once: an accepted job runs once, or is dropped on purpose
//     (Discard, Shutdown, a group's cancel) and counted; a job's panic is
//     recovered and returned as an error;
//   - nothing accepted is stranded: Close runs every accepted job, then
//     every worker exits;
//   - no lost wake-up, and on an ungated pool no job waits behind a slow
//     one while a worker is idle;
//   - FIFO takes (per shard when sharded), and Join and a group's Wait
//     return exactly when the jobs they wait for have run;
//   - exact counters, kept off the shared hot path.
//
// How the pool keeps these promises is written beside the code that does
// it (unexported comments in pool.go, worker.go, steal.go, wake.go,
// gate.go, ingress.go and shard.go); the wake rules are at the WakePolicy
// constants, and measured costs are in the repository's docs/workerpool.md.
package workerpool
