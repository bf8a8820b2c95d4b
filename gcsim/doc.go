// Package gcsim simulates SGen-style parallel minor garbage collections on
// a heap.Heap and measures their pauses under different job-dispatch
// strategies.
//
// A Sim owns a heap, a seeded mutator and a gated workerpool.Pool. Each
// round is Mutate (untimed: fill the nursery, store nursery references into
// old objects, LOS objects and roots through the write barrier, and run an
// untimed major collection when the major heap runs low) followed by Collect
// (the timed pause):
//
//  1. card prep: copy the cards to the shadow table and clear them;
//  2. dispatch: the collection's jobs — one roots job ("scan wbroots"), S
//     major-heap jobs over contiguous block ranges and S LOS jobs over
//     contiguous slices of the LOS object array, S = jobs.SplitCount(workers)
//     (8 workers: 1 + 32 + 32 = 65 jobs) — are run inline (Serial), enqueued
//     one at a time (PerJob, SGen's simple-par before mono/mono#20634) or
//     as one batch (Batch, after it), and the gate is opened with Start;
//  3. join: wait for every job;
//  4. nursery reset: return the workers' promotion blocks and empty the nursery.
//
// Each job scans marked cards; for every nursery reference it promotes the
// object exactly once (a CAS on the original's forwarding word), updates the
// slot and drains its own gray stack (heap.Promoter). The jobs are built
// once, in New, and reused, and the per-worker state is preallocated, so a
// pause allocates nothing on the Go heap: the host collector has no reason
// to run inside a measurement, and Record.HostGCs flags a sample when it
// did anyway.
//
// Compare runs several modes interleaved in rotating rounds on one evolving
// heap, so machine drift hits every mode alike.
package gcsim
