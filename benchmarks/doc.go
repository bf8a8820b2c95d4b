// Package benchmarks compares gcbench's workerpool with the Go pools people
// reach for — github.com/panjf2000/ants/v2, github.com/alitto/pond/v2,
// github.com/sourcegraph/conc/pool, golang.org/x/sync/errgroup with
// SetLimit — and with a plain goroutine per task, on the same workloads:
//
//   - BenchmarkTiny: 1M and 10M tiny tasks (one atomic add each), queued
//     and then waited for;
//   - BenchmarkSubmitters: 1M tiny tasks submitted one call at a time by
//     1, 100, 1K or 10K goroutines at once (1×1M, 100×10K, 1K×1K,
//     10K×100), then waited for;
//   - BenchmarkCPU: 1M tasks of about 1 µs of CPU work each;
//   - BenchmarkRounds: rounds of 65 jobs of about 1 µs each, every round
//     waited for before the next, the shape of one parallel minor
//     collection (workers*4 major-heap jobs + workers*4 LOS jobs + 1 roots
//     job, at 8 workers); gcbench's pool also runs them gated, which no
//     peer can express.
//
// It is a separate module so that the root module never depends on the
// peers. Every benchmark is a sub-benchmark named pool=NAME so that
// `benchstat -col /pool` lays the contenders side by side; see README.md.
package benchmarks
