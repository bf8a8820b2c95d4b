// Package gcsim simulates SGen-style parallel minor garbage collections on
// a heap.Heap and measures their pauses under different job-dispatch
// strategies, the Modes: jobs run inline (Serial), enqueued one at a time
// (PerJob), as one batch (Batch) or as one batch with the gate (StartBatch).
//
// What it guarantees:
//
//   - A collection is 1 roots job plus 2·jobs.SplitCount(workers) card-scan
//     jobs, dispatched through a gated workerpool.Pool as the mode says;
//     every nursery object they reach is promoted exactly once, so with
//     Config.Verify the reachable graph's checksum never changes.
//   - A pause allocates nothing on the Go heap; Record.HostGCs flags a
//     sample the host's collector overlapped anyway.
//   - A Record's anatomy adds up to its pause: CardPrep + ToFirstJob +
//     JobSpan + JoinLatency + NurseryReset = Pause.
//   - Compare runs the modes interleaved in rotating rounds on one evolving
//     heap, so drift hits every mode alike.
//   - A setting that cannot be used is a *setting.Error naming the
//     setting's key (as Config's JSON spells it) and the bound; an
//     Experiment is validated whole (Experiment.Validate) before any heap
//     is built, the pool's combination of backend, wake policy and mutex
//     kind included.
//   - The long untimed phases look at a context about every MiB of work
//     and return within milliseconds of a cancel; a pause polls it only
//     between PerJob's enqueues (a non-blocking channel receive), and a
//     cancel discards its queued jobs, so that its Join waits only for the
//     running ones.
//
// Compare is the entry point (ExampleCompare); a Sim (New, Mutate,
// Collect) runs one collection at a time, and Config.Trace records its
// collections and jobs into a trace.Session (ExampleConfig_trace); a
// Grid lists a sweep's configurations, one Compare each. An Experiment is
// a comparison whole, as a front end runs it (Run, Procs) and a report
// (package report) keeps it: Experiment.Report makes the report of its
// Result, showing its settings as reports always have (ReportConfig), and
// ReadExperiment reads the typed settings back, strictly.
// DefaultConfig is the seed experiment on SGen's own pool where the build
// has it (DefaultBackend). How gcbench measures with it, and why the
// backends differ: docs/methodology.md in the module's repository.
package gcsim
