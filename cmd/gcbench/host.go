package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gcbench/gcbench/analysis"
)

// probeHost describes this machine for a result: CPU model, cores, the
// GOMAXPROCS in force, Go version and platform.
func probeHost() analysis.Host {
	h := analysis.Host{
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
	}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return h
}

// describeHost is the host as one line of a protocol's table.
func describeHost(h analysis.Host) string {
	cpu := h.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d CPUs, GOMAXPROCS %d, %s", cpu, h.Cores, h.GOMAXPROCS, h.GoVersion)
}
