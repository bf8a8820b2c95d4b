// Package report is the schema of gcbench's results: a Report holds what
// was run (its configuration: key/value pairs in the order tables show
// them, and the typed settings of their owner, carried as raw JSON), and
// for each machine it ran on a Run with
// the host, the pause samples per mode (µs), their summaries, counter means
// and comparisons, and optionally the pause anatomy. It reads and writes
// reports as JSON (ReadFile: a report file, named in its errors), merges
// runs of one configuration from several machines (Merge), sets two
// modes against each other across a sweep's points (NewScaling), and
// summarizes repeated runs of one command on one machine: each comparison's
// per-run improvement, their median, range and a bootstrap interval
// (NewRunsSummary), and per sweep point the ratio of repeated sweeps
// (NewRunsScaling).
//
// Guarantees: a Report's derived numbers always follow from its samples —
// NewRun computes them, and ReadJSON recomputes them rather than trusting
// a file, so an edited or truncated file cannot produce inconsistent
// tables; ReadJSON accepts exactly one document of Schema and refuses
// non-finite or out-of-range samples with an error wrapping ErrSchema or
// ErrInvalidInput. It is pure (no goroutines, flags or clocks) but for
// ReadFile and ReadFiles, which open files through internal/infile so that
// a stop ends a wait on a FIFO; of gcbench it imports only that and
// package stats, which computes every statistic. Package render draws
// reports (ExampleNewRun).
package report
