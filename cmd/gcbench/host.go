package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gcbench/gcbench/report"
)

// probeHost describes this machine for a result: CPU model, cores, the
// GOMAXPROCS in force, Go version and platform.
func probeHost() report.Host {
	h := report.Host{
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion:  runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
	}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPUModel = cpuModel(string(b))
	}
	return h
}

// cpuModel is the first "model name" in a /proc/cpuinfo, "" if none.
func cpuModel(cpuinfo string) string {
	for line := range strings.Lines(cpuinfo) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// describeHost is the host as one line of a protocol's table.
func describeHost(h report.Host) string {
	cpu := h.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d CPUs, GOMAXPROCS %d, %s", cpu, h.Cores, h.GOMAXPROCS, h.GoVersion)
}
