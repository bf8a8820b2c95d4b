// Package tracestress is EventPipe's stress protocol, run against package
// trace. It keeps the guarantees every seed
// protocol keeps (see package cmd/gcbench/internal/seeds): interleaving, statistics
// from package stats, bounded counts, cancellation within milliseconds,
// actors on OS threads.
//
// Compare reproduces EventPipe's stress protocol (src/tests/EventPipeStress
// in github.com/dotnet/diagnostics) against package trace, a port of
// EventPipe's buffer manager (src/native/eventpipe/ep-buffer-manager.c in
// github.com/dotnet/runtime): writers write fixed-size events as fast as
// they can into a session with a byte budget while its reader streams them
// to a file, and the file is read back to count the events read and
// dropped. It compares the Lockless buffer reservation (a CAS loop that
// fails without taking a lock) with the Locked one it replaced. For every
// run, events read + events dropped = events the writers attempted,
// checked against the session's own counters, and the run's file leaves
// no path behind, even if the process is killed. The reported figures are
// counted while the writers write, for the run's duration from the first
// dropped event (neither the initial fill of the empty budget nor the
// final drain).
// Each run also records the reader's flushes made against those its pause
// asks for (counted time / flush interval), its manager-lock acquisitions
// per flush, its thread's CPU share, and the lock's waits: event
// throughput is the reader's drain, since writers refill the budget as
// soon as a flush frees it, so these say where a policy's throughput went.
// With trace.EventPipeReader, SpinLock and the allocation in the lock (the
// command's defaults) the session runs EventPipe's protocol as
// dotnet/runtime#50797 measured it, the reader queueing on the manager
// lock with the writers.
//
// Result.Write renders a result as gcbench trace-stress prints it, and
// Result.Document is its JSON form.
package tracestress
