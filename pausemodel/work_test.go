package pausemodel

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/workerpool"
)

// uneven is a work curve whose second half costs three times its first.
var uneven = Work{Roots: 5 * us, Outside: 7 * us,
	Major: []time.Duration{0, 10 * us, 20 * us, 50 * us, 80 * us},
	LOS:   []time.Duration{0, 40 * us}}

func TestJobsResplitTheWork(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8, 64} {
		js := uneven.Jobs(workers)
		parts := 1
		if workers > 1 {
			parts = 4 * workers
		}
		if len(js) != 1+2*parts {
			t.Fatalf("%d workers: %d jobs, want %d", workers, len(js), 1+2*parts)
		}
		var sum time.Duration
		for _, j := range js {
			sum += j
		}
		if d := sum - uneven.Serial(); d < -time.Duration(len(js)) || d > time.Duration(len(js)) {
			t.Errorf("%d workers: jobs add up to %v, the work is %v", workers, sum, uneven.Serial())
		}
	}
	two := uneven.Jobs(2) // 8 major parts: the last half's parts cost 3× the first's
	if two[1] != 5*us || two[8] != 15*us {
		t.Errorf("major parts %v: want 5 µs in the cheap half, 15 µs in the dear one", two[1:9])
	}
}

func TestPredictAddsTheOutsideParts(t *testing.T) {
	pause, r, err := Predict(hostLike, uneven, 2, 2, gcsim.Batch, workerpool.MutexPI)
	if err != nil {
		t.Fatal(err)
	}
	if pause != uneven.Outside+r.Dispatch {
		t.Errorf("pause %v, want outside %v + dispatch %v", pause, uneven.Outside, r.Dispatch)
	}
}

// TestPredictSimulatesEachCollection: one worker runs the jobs back to
// back, so the span is a collection's serial cost; with Each, Predict's
// span is the mean of the collections' costs, not the cost of the mean
// fields (which this Work sets apart on purpose).
func TestPredictSimulatesEachCollection(t *testing.T) {
	times := func(w Work, k time.Duration) Work {
		out := Work{Roots: k * w.Roots}
		for _, v := range w.Major {
			out.Major = append(out.Major, k*v)
		}
		for _, v := range w.LOS {
			out.LOS = append(out.LOS, k*v)
		}
		return out
	}
	w := uneven
	w.Each = []Work{times(uneven, 1), times(uneven, 3)}
	_, r, err := Predict(Costs{}, w, 4, 1, gcsim.Batch, workerpool.MutexPI)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * uneven.Serial(); r.JobSpan != want {
		t.Errorf("span %v, want the mean of %v and %v", r.JobSpan, uneven.Serial(), 3*uneven.Serial())
	}
}

// TestScaledScalesTheJobsNotTheCollector: every job's cost, Each's
// included, is multiplied; the collector's own parts are kept.
func TestScaledScalesTheJobsNotTheCollector(t *testing.T) {
	w := uneven
	w.Each = []Work{uneven}
	s := w.Scaled(1.5)
	if s.Serial() != w.Serial()*3/2 {
		t.Errorf("scaled serial cost %v, want 1.5 × %v", s.Serial(), w.Serial())
	}
	if s.Outside != w.Outside {
		t.Errorf("outside %v, want it kept at %v", s.Outside, w.Outside)
	}
	if len(s.Each) != 1 || s.Each[0].Serial() != uneven.Serial()*3/2 {
		t.Errorf("each %v: want the one collection scaled too", s.Each)
	}
	if w.Major[4] != 80*us {
		t.Errorf("the original changed: %v", w.Major)
	}
}

// TestMeasureSlowdownRunsTheJobsOnTheNativePool: with the Native backend
// built in, a small heap's slowdown is a positive finite factor; without
// it, the error says the backend is missing. Nonsense shapes are refused.
func TestMeasureSlowdownRunsTheJobsOnTheNativePool(t *testing.T) {
	cfg := gcsim.DefaultConfig()
	cfg.MajorHeap, cfg.LOS, cfg.Nursery = 16<<20, 8<<20, 256<<10
	cfg.Mutator.BarrierStores, cfg.Mutator.Published = 400, 20
	cfg.Mutator.MaxLargeObject = 32 << 10
	for _, shape := range [][2]int{{0, 3}, {2, 0}} {
		if _, err := MeasureSlowdown(context.Background(), cfg, shape[0], shape[1]); !errors.Is(err, ErrShape) {
			t.Errorf("%d workers, %d collections: %v, want ErrShape", shape[0], shape[1], err)
		}
	}
	f, err := MeasureSlowdown(context.Background(), cfg, 2, 3)
	if !workerpool.NativeAvailable {
		if !errors.Is(err, workerpool.ErrUnsupported) {
			t.Fatalf("without the Native backend: %v, want an error wrapping ErrUnsupported", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !(f > 0) || math.IsInf(f, 0) {
		t.Errorf("slowdown %v, want a positive finite factor", f)
	}
}
