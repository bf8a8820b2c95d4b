// Package render draws gcbench's reports: the pause table (rows are
// statistics, the seed's with the extremes and tail percentiles; columns
// are modes, then improvement columns) as text, Markdown, CSV and JSON
// (Write), one table type for every other section
// (Table), the pause anatomy, histogram, box and CDF plots as PNG or SVG
// (WritePlot), one self-contained HTML file with inline SVG plots
// (WriteHTML), Go benchmark format for benchstat (WriteBench),
// HdrHistogram interval logs (WriteHDRLog), a sweep's scaling table
// and plots (WriteScaling, WriteScalingPlot, WriteScalingHTML), a
// trace file's summary (TraceSummary), and the spelling of numbers and
// ranges in the cells of tables built elsewhere (Float, Range).
//
// Guarantees: rendering never changes a report and takes every statistic
// from package stats through package report, or a trace's from package
// trace (its own arithmetic is layout:
// the anatomy's differences and shares, axis ranges, a CDF's steps); the
// same report renders to the same bytes on every machine, which the golden
// files in testdata hold it to; every cell taken from a file (titles,
// configuration values) stays in its own line and cell in every format. It
// is pure: no goroutines, no flags, no clocks.
package render
