package main

import "github.com/gcbench/gcbench/internal/host"

// The host line of every result is package host's; run and predict name
// it by these names.
var (
	probeHost    = host.Probe
	describeHost = host.Describe
)
