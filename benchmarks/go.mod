module github.com/gcbench/gcbench/benchmarks

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/gcbench/gcbench v0.0.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.25.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace github.com/gcbench/gcbench => ../
