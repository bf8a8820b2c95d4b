// Package analysis turns pause samples into the numbers and pictures that
// gcbench reports: summaries, comparisons with significance, tables in
// text, Markdown, CSV and JSON, and plots; and for the field's own tools,
// one self-contained HTML file with inline SVG plots (WriteHTML), Go
// benchmark format for benchstat (WriteBench) and HdrHistogram interval
// logs (WriteHDRLog).
//
// It is pure: no goroutines, no flags, no clocks, and no imports of other
// gcbench packages. Callers convert their measurements into [ModeInput]
// values (pause samples in microseconds plus per-collection counters),
// build a [Run] with [NewRun], wrap runs in a [Report] and render it.
//
// # Definitions of the table's rows
//
// The seed's table was computed in a spreadsheet, so its rows use the
// definitions of the spreadsheet functions as Microsoft Excel and
// LibreOffice Calc document them, and the text and Markdown tables say so
// in their footer:
//
//   - "TrimMean p%" is TRIMMEAN(range, p), computed by [TrimMean]: floor(n·p)
//     points are excluded in total, rounded down to an even number, half
//     from each tail, so floor(floor(n·p)/2) points are cut from each end
//     and the rest averaged. With p = 10%, a sample of 30 loses one point
//     at each end and a sample of 10 loses none. (This is not scipy's
//     trim_mean, which cuts floor(n·p) from each end.)
//   - "Q1", "Q2" and "Q3" are QUARTILE.INC(range, 1..3), computed by
//     [QuartileInc]: linear interpolation between order statistics at the
//     0-based position (n−1)·q (Hyndman and Fan type 7, R's default). Q2 is
//     the ordinary median: the mean of the middle two of an even sample.
//     The box plots draw these quartiles.
//
// # Tail percentiles
//
// The tail percentiles p90, p99 and p99.9, the pooled p99 that bounds the
// histogram, and the empirical CDF plots use one other definition,
// [Quantile]: the inverse of the empirical distribution function (Hyndman
// and Fan type 1, gonum's stat.Empirical), x[ceil(p·n)−1] of the sorted
// sample (x[0] for p = 0). A tail percentile is thus always an observed
// pause, never a value between two rare long pauses that no collection
// had, and it is exactly where the CDF plot crosses p.
//
// # Improvement and significance
//
// Improvement of new over base is (base − new) / base × 100 for each
// statistic: positive means new is faster (shorter pauses). Significance is
// the two-sided Mann–Whitney U test of golang.org/x/perf/benchmath (the
// statistics behind benchstat), and the median's confidence interval is its
// distribution-free order-statistic interval.
package analysis
