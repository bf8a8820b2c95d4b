// Package workerpool is a fixed-size worker pool for batches of jobs, with
// exact counters of what each dispatch cost.
//
// # Everyday use
//
//	p, err := workerpool.New(workerpool.Options{}) // GOMAXPROCS workers
//	defer p.Close()
//
//	g := p.NewGroup(ctx)                  // a Group: Go, TryGo, Wait
//	g.Go(func(ctx context.Context, worker int) error { ... })
//	err = g.Wait()
//
//	out, err := workerpool.Map(ctx, p, items, fn) // results in the items' order
//
//	p.Enqueue(job)        // one job; EnqueueBatch for many under one lock
//	p.TryEnqueue(job)     // ErrQueueFull instead of waiting (Options.MaxQueued)
//	p.Shutdown(ctx)       // drain until ctx ends, like http.Server.Shutdown
//	p.Stats()             // exact counters and gauges
//
// See ExamplePool_NewGroup and ExampleMap.
//
// Every pool guarantees:
//
//   - exactly once: an accepted job runs once, or is dropped on purpose
//     (Discard, Shutdown, a group's cancel) and counted; a job's panic is
//     recovered and returned as an error;
//   - nothing accepted is stranded: Close runs every accepted job, then
//     every worker exits;
//   - no lost wake-up, and on an ungated pool idle workers take over the
//     jobs queued behind a slow one (all but the few its worker claimed
//     with it: fewer than ran before it in the same grab);
//   - FIFO takes (per shard when sharded), and Join and a group's Wait
//     return exactly when the jobs they wait for have run;
//   - backpressure on every job accepted and not started
//     (Options.MaxQueued), with idle workers counted as room;
//   - exact counters, kept off the shared hot path.
//
// # Jobs that wait
//
// A job may wait for a group or Map of its own pool (Group.Wait, WaitCtx,
// Map): while it waits, its worker runs the pool's queued jobs, so nested
// groups and a Map inside a job finish even on a pool of one worker. The
// waiting job's goroutine runs those jobs, so do not wait while holding a
// lock that they may take. A job that blocks on anything else — a channel, a lock, I/O, a group of
// another pool, a full GroupLimit — holds its worker, and a fixed pool has
// no more: if every worker's job blocks on work still queued behind them,
// the pool deadlocks, where a goroutine per task would not. Size the pool
// for that: give jobs that block on I/O or on each other a pool of their
// own, with as many workers as may block at once plus GOMAXPROCS for the
// work that computes; keep CPU-bound jobs on a GOMAXPROCS pool; and inside
// a job, prefer Group.TryGo to Go on a limited group, doing the work
// inline when it returns false.
//
// # The SGen round
//
// The rest of the API reproduces and measures the dispatch of Mono's SGen
// collector (mono/mono#20634): a per-job broadcast behind a closed gate
// wakes every worker for nothing, and one batch with one wake cut its
// pauses. Options.Gated makes a pool whose workers wait for Start; a round
// is EnqueueBatch (or StartBatch, which enqueues and opens the gate with
// one wake) then Join, which waits for the round and closes the gate again
// (ExamplePool_StartBatch). Backend, WakePolicy and QueueLayout choose what
// is measured; Stats counts lock acquisitions, wake calls, futile wake-ups
// and futex calls exactly. These stay methods of Pool rather than a type
// of their own because a round and the everyday API share one queue, one
// set of workers and one set of counters, and gcsim drives both on one
// pool; a gated pool refuses groups and Map (ErrGated), so the two parts
// never mix on one pool by accident.
//
// How the pool keeps its promises is written beside the code that does
// it (unexported comments in pool.go, worker.go, steal.go, help.go,
// wake.go, gate.go, ingress.go and shard.go); the wake rules are at the
// WakePolicy constants, and measured costs are in the repository's
// docs/workerpool.md.
package workerpool
