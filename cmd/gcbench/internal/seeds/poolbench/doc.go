// Package poolbench is the .NET DedicatedThreadPool's benchmark protocols,
// run against package workerpool. It keeps the guarantees
// every seed protocol keeps (see package cmd/gcbench/internal/seeds):
// interleaving, statistics from package stats, bounded counts,
// cancellation within milliseconds.
//
// Measure and Compare reproduce the throughput and latency protocols
// of the .NET DedicatedThreadPool (github.com/helios-io/DedicatedThreadPool):
// Throughput queues many tiny items at once and waits for all of them;
// Latency submits one item and waits for it, again and again, so that
// every round trip finds the workers idle and pays a wake-up. The
// contenders are package workerpool in every backend and wake policy, with
// per-item Enqueue and with EnqueueBatch, beside a goroutine per item and
// a sync.WaitGroup. A run fails unless every item ran exactly once.
//
// Report.Write renders a report as gcbench pool prints it.
package poolbench
