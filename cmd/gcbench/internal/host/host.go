// Package host describes the machine gcbench runs on, for the host line
// every result carries: Probe reads it (CPU model, cores, GOMAXPROCS in
// force, Go version, platform) and Describe puts it on one line.
//
// It is not pure, as package report is: Probe reads /proc/cpuinfo and the
// hostname, and GOMAXPROCS at the moment it is called, so a command that
// sets GOMAXPROCS for a run probes after setting it.
package host

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gcbench/gcbench/analysis/report"
)

// Probe describes this machine now. A field it cannot read (a CPU model
// off Linux, a hostname) is left empty.
func Probe() report.Host {
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

// Describe is h as the one line under a benchmark protocol's title: CPU
// model ("unknown CPU" if none), CPUs, GOMAXPROCS and Go version.
func Describe(h report.Host) string {
	cpu := h.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d CPUs, GOMAXPROCS %d, %s", cpu, h.Cores, h.GOMAXPROCS, h.GoVersion)
}
