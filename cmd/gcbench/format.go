package main

import (
	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
)

// The renderings a command writes: --format, which names one of render's
// formats (--plot's file's extension names the plot's:
// render.PlotFormatOfFile).

// formatFlag is the --format of a command that writes tables: one of
// render's table formats, in *p (its default, as the flag finds it).
func formatFlag(p *render.Format) *flagvalue.Value[render.Format] {
	return flagvalue.New(p, *p, "format", flagvalue.OneOf(render.ParseFormat, render.FormatNames()))
}

// reportFormatFlag is run's and report's --format: the table formats and
// bench.
func reportFormatFlag(p *render.Format) *flagvalue.Value[render.Format] {
	return flagvalue.New(p, *p, "format", flagvalue.OneOf(render.ParseReportFormat, render.ReportFormatNames()))
}
