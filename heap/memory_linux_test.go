//go:build linux

package heap

import (
	"strings"
	"testing"
)

// FuzzMemAvailable: whatever /proc/meminfo holds, the reading is 0 or a
// positive whole number of KiB.
func FuzzMemAvailable(f *testing.F) {
	for _, s := range []string{
		"MemTotal:       24576000 kB\nMemFree:        1000 kB\nMemAvailable:   20000000 kB\n",
		"MemAvailable: 9223372036854775807 kB\n", "MemAvailable: -5 kB\n", "MemAvailable:\n", "MemAvailable: 0x10 kB\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := memAvailable(strings.NewReader(s)); n < 0 || n%1024 != 0 {
			t.Fatalf("memAvailable(%q) = %d", s, n)
		}
	})
}

func TestMemAvailable(t *testing.T) {
	if got := memAvailable(strings.NewReader("MemFree: 5 kB\nMemAvailable:   20 kB\n")); got != 20<<10 {
		t.Errorf("memAvailable = %d, want %d", got, 20<<10)
	}
	if got := memAvailable(strings.NewReader("MemAvailable: 9223372036854775807 kB\n")); got != 0 {
		t.Errorf("memAvailable of an overflowing count = %d, want 0", got)
	}
	if AvailableMemory() <= 0 {
		t.Error("AvailableMemory() = 0 on Linux")
	}
}
