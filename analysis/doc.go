// Package analysis turns pause samples into the numbers and pictures that
// gcbench reports: summaries, comparisons with significance, tables in
// text, Markdown, CSV and JSON, and plots; and for the field's own tools,
// one self-contained HTML file with inline SVG plots (WriteHTML), Go
// benchmark format for benchstat (WriteBench) and HdrHistogram interval
// logs (WriteHDRLog).
//
// It is pure: no goroutines, no flags, no clocks, and no imports of other
// gcbench packages. It is the only place gcbench computes a statistic.
// Callers convert their measurements into [ModeInput] values (pause
// samples in microseconds plus per-collection counters), build a [Run]
// with [NewRun], wrap runs in a [Report] and render it (ExampleNewRun).
//
// The table's rows follow the spreadsheet functions SGen's results were
// computed with: "TrimMean p%" is TRIMMEAN ([TrimMean]), "Q1" to "Q3" are
// QUARTILE.INC ([QuartileInc]); the tail percentiles are the empirical
// distribution's inverse ([Quantile]); improvement is (base − new) / base,
// significance the two-sided Mann–Whitney U test of
// golang.org/x/perf/benchmath ([Compare]), and a ratio's interval a
// percentile bootstrap ([RatioOf]). Each function's doc gives its exact
// definition; docs/methodology.md in the module's repository explains them
// together, with the host-GC-disturbed flag.
package analysis
