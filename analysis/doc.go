// Package analysis turns pause samples into the numbers and pictures that
// gcbench reports: summaries, comparisons with significance, tables in
// text, Markdown, CSV and JSON, and plots.
//
// It is pure: no goroutines, no flags, no clocks, and no imports of other
// gcbench packages. Callers convert their measurements into [ModeInput]
// values (pause samples in microseconds plus per-collection counters),
// build a [Run] with [NewRun], wrap runs in a [Report] and render it.
//
// # Quantiles
//
// Every quantile in this package — Q1, median, Q3, p90, p99, p99.9, the
// box plots' boxes and the empirical CDF plots — uses one definition, the
// inverse of the empirical distribution function (Hyndman and Fan type 1,
// gonum's stat.Empirical): the p-quantile of a sorted sample x[0..n-1] is
// x[ceil(p·n)-1] (x[0] for p = 0). It is always an observed pause, never an
// interpolation between two, and it is exactly where the empirical CDF plot
// crosses p.
//
// # Trimmed means
//
// TrimMean p cuts floor(p·n) samples from each tail of the sorted sample
// and averages the rest (scipy's trim_mean). With n = 9 and p = 10% nothing
// is cut; with n = 10, one sample from each end.
//
// # Improvement and significance
//
// Improvement of new over base is (base − new) / base × 100 for each
// statistic: positive means new is faster (shorter pauses). Significance is
// the two-sided Mann–Whitney U test of golang.org/x/perf/benchmath (the
// statistics behind benchstat), and the median's confidence interval is its
// distribution-free order-statistic interval.
package analysis
