package report_test

import (
	"fmt"
	"os"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/analysis/stats"
)

func ExampleNewRun() {
	run, err := report.NewRun(report.Host{Hostname: "example"}, []report.ModeInput{
		{Name: "perjob", Pauses: []float64{210, 190, 205, 230, 199, 220, 201, 215}},
		{Name: "batch", Pauses: []float64{150, 160, 149, 171, 158, 152, 166, 155}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := run.Comparisons[0]
	median, _ := c.ImprovementOf(stats.Median)
	fmt.Printf("%s vs %s: median %+.1f%%, significant: %v\n", c.New, c.Base, median, c.Significant)

	rep := report.NewReport("pause", report.Config{{Key: "workers", Value: "2"}}, run)
	if err := render.Write(os.Stdout, rep, render.CSV); err != nil {
		fmt.Println(err)
	}
	// Output:
	// batch vs perjob: median +24.6%, significant: true
	// statistic,perjob,batch,batch vs perjob improvement %,config,host
	// Stdev,12.759,7.800,38.87,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Avg,208.750,157.625,24.49,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// TrimMean 10%,208.750,157.625,24.49,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// TrimMean 25%,208.333,156.833,24.72,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Min,190.000,149.000,21.58,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Q1,200.500,151.500,24.44,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Q2,207.500,156.500,24.58,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Q3,216.250,161.500,25.32,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// p90,230.000,171.000,25.65,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// p99,230.000,171.000,25.65,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// p99.9,230.000,171.000,25.65,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// Max,230.000,171.000,25.65,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// p-value,,,0.0001554,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// n,8,8,,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
	// host-GC disturbed,0,0,,workers=2,example; ; 0 cores; GOMAXPROCS 0;  /; elapsed 0s
}
