package trace

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

// TestStressSmall runs the protocol at a tiny scale: both policies,
// interleaved, with accounting checked inside Stress.
func TestStressSmall(t *testing.T) {
	res, err := Stress(context.Background(), StressOptions{
		Writers: 4, PayloadSize: 64, Limit: MinLimit * 4, Duration: 30 * time.Millisecond,
		Iterations: 2, FlushInterval: 5 * time.Millisecond, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	order := []Policy{Lockless, Locked, Locked, Lockless}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for i, run := range res.Runs {
		if run.Policy != order[i] {
			t.Fatalf("run %d is %v, want %v (interleaved, alternating)", i, run.Policy, order[i])
		}
		if run.EventsRead == 0 || run.Duration <= 0 || run.FileBytes <= fileHeaderSize {
			t.Fatalf("run %d: %+v", i, run)
		}
	}
	for _, p := range []Policy{Lockless, Locked} {
		m := res.Metrics(p)
		if m[0].Name != "Events Read" || m[0].Spread.Min <= 0 || m[2].Spread.Max > 100 {
			t.Fatalf("%v metrics %+v", p, m)
		}
	}
}

func TestStressCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Stress(ctx, StressOptions{Writers: 2, Iterations: 1, Duration: time.Hour, Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestStressOptionsValidation(t *testing.T) {
	for _, o := range []StressOptions{{Writers: -1}, {PayloadSize: MaxPayload + 1}, {Iterations: -2}, {Limit: 5}, {Policies: []Policy{}}, {Duration: -time.Second}} {
		if _, err := Stress(context.Background(), o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Stress(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
}

func TestSpreadOf(t *testing.T) {
	s := SpreadOf([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.Min != 2 || s.Max != 9 || s.Mean != 5 || math.Abs(s.StdDev-2) > 1e-12 {
		t.Fatalf("SpreadOf = %+v, want min 2 max 9 mean 5 population stddev 2", s)
	}
}
