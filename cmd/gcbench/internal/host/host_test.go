package host

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
)

// FuzzCPUModel: the model is one trimmed line of the file, or "".
func FuzzCPUModel(f *testing.F) {
	for _, s := range []string{
		"processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n", "model name:\n", "model name", ":", "model name : a : b\r\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := cpuModel(s)
		if strings.ContainsAny(m, "\n") || m != strings.TrimSpace(m) || !strings.Contains(s, m) {
			t.Fatalf("cpuModel(%q) = %q", s, m)
		}
	})
}

func TestCPUModelIsTheFirst(t *testing.T) {
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nmodel name\t: other\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
}

func TestProbeReadsTheRuntime(t *testing.T) {
	h := Probe()
	if h.Cores != runtime.NumCPU() || h.GOMAXPROCS != runtime.GOMAXPROCS(0) || h.GoVersion != runtime.Version() ||
		h.OS != runtime.GOOS || h.Arch != runtime.GOARCH {
		t.Errorf("Probe() = %+v", h)
	}
}

func TestDescribe(t *testing.T) {
	h := report.Host{Cores: 2, GOMAXPROCS: 3, GoVersion: "go1.26"}
	if got, want := Describe(h), "unknown CPU, 2 CPUs, GOMAXPROCS 3, go1.26"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	h.CPUModel = "AMD EPYC"
	if got := Describe(h); !strings.HasPrefix(got, "AMD EPYC, ") {
		t.Errorf("Describe = %q", got)
	}
}
