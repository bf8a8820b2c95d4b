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
