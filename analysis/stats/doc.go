// Package stats is gcbench's one home of statistics: summaries of a sample
// (Summarize), the spreadsheet definitions of SGen's table (TrimMean,
// QuartileInc), tail quantiles (Quantile), differences from a base with
// significance (DeltaOf), ratios with bootstrap intervals (RatioOf) and
// the paired ratios and spreads of the seed protocols (PairedRatios,
// SpreadOf).
//
// It is pure: no goroutines, no flags, no clocks, no I/O, and no imports of
// other gcbench packages. Every function leaves its input slices as they
// were. Each function's doc gives its exact definition: "TrimMean p%" is
// TRIMMEAN ([TrimMean]), "Q1" to "Q3" are QUARTILE.INC ([QuartileInc]), the
// tail percentiles are the empirical distribution's inverse ([Quantile]),
// improvement is (base − new) / base and significance the two-sided
// Mann–Whitney U test of golang.org/x/perf/benchmath ([DeltaOf]), and a
// ratio's interval a percentile bootstrap ([RatioOf]). docs/methodology.md
// in the module's repository explains them together.
package stats
