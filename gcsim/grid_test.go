package gcsim

import (
	"testing"

	"github.com/gcbench/gcbench/workerpool"
)

// TestGridConfigsOrderAndMutexes: workers vary fastest, heap sizes
// slowest; only Native points run once per mutex kind.
func TestGridConfigsOrderAndMutexes(t *testing.T) {
	g := Grid{MajorHeaps: []int64{64 << 20, 128 << 20}, LOSes: []int64{16 << 20},
		Backends: []workerpool.Backend{workerpool.Threads, workerpool.Native},
		Mutexes:  []workerpool.MutexKind{workerpool.MutexPI, workerpool.MutexNormal},
		Wakes:    []workerpool.WakePolicy{workerpool.Broadcast}, Workers: []int{1, 2}}
	base := DefaultConfig()
	base.Seed = 7
	cs := g.Configs(base)
	if len(cs) != 2*(1+2)*2 {
		t.Fatalf("%d configurations, want 12", len(cs))
	}
	type point struct {
		major   int64
		backend workerpool.Backend
		mutex   workerpool.MutexKind
		workers int
	}
	want := []point{{64 << 20, workerpool.Threads, workerpool.MutexNormal, 1}, {64 << 20, workerpool.Threads, workerpool.MutexNormal, 2},
		{64 << 20, workerpool.Native, workerpool.MutexPI, 1}, {64 << 20, workerpool.Native, workerpool.MutexPI, 2},
		{64 << 20, workerpool.Native, workerpool.MutexNormal, 1}, {64 << 20, workerpool.Native, workerpool.MutexNormal, 2},
		{128 << 20, workerpool.Threads, workerpool.MutexNormal, 1}}
	for i, w := range want {
		c := cs[i]
		if got := (point{c.MajorHeap, c.Backend, c.Mutex, c.Workers}); got != w {
			t.Errorf("configuration %d: %+v, want %+v", i, got, w)
		}
	}
	for _, c := range cs {
		if c.Seed != 7 || c.LOS != 16<<20 || c.Wake != workerpool.Broadcast {
			t.Fatalf("a configuration lost base's or the grid's settings: %+v", c)
		}
	}
}

// TestPointNamesAreDistinct: every configuration of a grid has a name of
// its own, made of its values on the axes.
func TestPointNamesAreDistinct(t *testing.T) {
	g := Grid{MajorHeaps: []int64{64 << 20, 2560 << 20}, LOSes: []int64{16 << 20, 1 << 30},
		Backends: []workerpool.Backend{workerpool.Threads, workerpool.Native, workerpool.Goroutines},
		Mutexes:  []workerpool.MutexKind{workerpool.MutexPI, workerpool.MutexNormal},
		Wakes:    []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Targeted}, Workers: []int{1, 16}}
	seen := map[string]bool{}
	for _, c := range g.Configs(DefaultConfig()) {
		name := c.PointName()
		if seen[name] {
			t.Errorf("two configurations named %s", name)
		}
		seen[name] = true
	}
	c := DefaultConfig()
	c.Workers, c.Wake, c.Backend, c.Mutex, c.MajorHeap, c.LOS = 8, workerpool.Broadcast, workerpool.Native, workerpool.MutexPI, 2560<<20, 1<<30
	if got := c.PointName(); got != "workers8-broadcast-native-pi-major2.5GiB-los1GiB" {
		t.Errorf("PointName = %q", got)
	}
	c.Backend = workerpool.Threads
	if got := c.PointName(); got != "workers8-broadcast-threads-major2.5GiB-los1GiB" {
		t.Errorf("PointName = %q (no mutex off the Native backend)", got)
	}
}
