package readylist

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gcbench/gcbench/analysis/stats"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds"
)

// runWithDeadline runs r with a deadline, so that a lost event (the
// consumer would wait for it forever) fails the test instead of hanging it.
func runWithDeadline(r Run) (Sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Measure(ctx, r)
}

func TestMeasureCountsEveryEvent(t *testing.T) {
	for _, variant := range []Variant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			for _, producers := range []int{1, 3, 16} {
				s, err := runWithDeadline(Run{Kind: kind, Variant: variant, Producers: producers, Events: 5000})
				require.NoError(t, err)
				assert.Equal(t, kind, s.Kind)
				assert.Equal(t, variant, s.Variant)
				assert.Equal(t, producers, s.Producers)
				assert.Equal(t, int64(producers*5000), s.Events, "%v/%v/%d: the consumer sums every event exactly once", variant, kind, producers)
				assert.GreaterOrEqual(t, s.Pops, int64(producers), "every producer pushes at least once")
				assert.LessOrEqual(t, s.Pops, s.Events)
				assert.Positive(t, s.Elapsed)
				assert.InDelta(t, float64(s.Events)/(s.Elapsed.Seconds()*1000), s.EventsPerMs(), 1e-6*s.EventsPerMs())
			}
		}
	}
}

// TestMeasureExactlyOnceProperty runs random shapes of every variant
// and kind with real concurrency (run it with -race): the consumer must
// sum exactly every event — it stops at the total, so a lost event shows
// as the deadline, a double count as a sum above the total — and must
// never pop more items than there were events to link them.
func TestMeasureExactlyOnceProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := Run{
			Kind:      rapid.SampledFrom([]ListKind{MPSC, Mutex}).Draw(rt, "kind"),
			Variant:   rapid.SampledFrom([]Variant{Transition, Callback}).Draw(rt, "variant"),
			Producers: rapid.IntRange(1, 12).Draw(rt, "producers"),
			Events:    rapid.IntRange(1, 1500).Draw(rt, "events"),
		}
		s, err := runWithDeadline(r)
		if err != nil {
			rt.Fatalf("%+v: %v", r, err)
		}
		if want := int64(r.Producers) * int64(r.Events); s.Events != want {
			rt.Fatalf("%+v: summed %d events, want %d", r, s.Events, want)
		}
		if s.Pops < int64(r.Producers) || s.Pops > s.Events {
			rt.Fatalf("%+v: %d pops, want %d..%d", r, s.Pops, r.Producers, s.Events)
		}
	})
}

// TestReadyPathsNeverStrandAnEvent drives each variant's ready path from
// one goroutine, interleaving single events with the consumer's two steps
// — pop (which unlinks) and, later, the swap of the popped counter — in
// every order rapid finds. Events that arrive between the two steps are
// the race epoll re-checks for: they must be taken by that swap or find
// the item unlinked and link it again. At the end, draining must find
// every event exactly once.
func TestReadyPathsNeverStrandAnEvent(t *testing.T) {
	for _, variant := range []Variant{Transition, Callback} {
		for _, kind := range []ListKind{MPSC, Mutex} {
			t.Run(variant.String()+"/"+kind.String(), func(t *testing.T) {
				rapid.Check(t, func(rt *rapid.T) {
					ps := make([]readyProducer, rapid.IntRange(1, 4).Draw(rt, "items"))
					for i := range ps {
						ps[i].node.Value = i
					}
					path := newReadyPath(Run{Kind: kind, Variant: variant}, ps, new(readyWaiter))
					var produced, summed int64
					var held *readyItem // popped, counter not yet swapped
					for _, op := range rapid.SliceOfN(rapid.IntRange(0, len(ps)+1), 1, 100).Draw(rt, "ops") {
						switch {
						case op < len(ps): // one event on item op
							path.produce(&ps[op].readyItem, 1)
							produced++
						case held == nil: // consumer, step 1
							held, _ = path.pop()
						default: // consumer, step 2
							summed += held.count.Swap(0)
							held = nil
						}
					}
					if held != nil {
						summed += held.count.Swap(0)
					}
					for pops := 0; ; pops++ {
						p, ok := path.pop()
						if !ok {
							break
						}
						if pops > len(ps) {
							rt.Fatalf("an item is linked twice")
						}
						summed += p.count.Swap(0)
					}
					if summed != produced {
						rt.Fatalf("summed %d of %d events", summed, produced)
					}
				})
			})
		}
	}
}

// TestCallbackPathsDeduplicate checks the callback's per-event ready path
// directly: however many events arrive while an item is linked, it is
// linked once; once popped, the next event links it again.
func TestCallbackPathsDeduplicate(t *testing.T) {
	for _, kind := range []ListKind{MPSC, Mutex} {
		ps := make([]readyProducer, 2)
		for i := range ps {
			ps[i].node.Value = i
		}
		path := newReadyPath(Run{Kind: kind, Variant: Callback}, ps, new(readyWaiter))
		path.produce(&ps[1].readyItem, 5)
		path.produce(&ps[0].readyItem, 3)
		path.produce(&ps[1].readyItem, 2)
		for _, want := range []struct {
			item  int
			count int64
		}{{1, 7}, {0, 3}} {
			p, ok := path.pop()
			require.True(t, ok, "%v", kind)
			assert.Same(t, &ps[want.item].readyItem, p, "%v: FIFO, each item once", kind)
			assert.Equal(t, want.count, p.count.Swap(0), "%v", kind)
		}
		_, ok := path.pop()
		assert.False(t, ok, "%v: every item was linked once", kind)
		path.produce(&ps[0].readyItem, 1)
		p, ok := path.pop()
		require.True(t, ok, "%v: a popped item links again on its next event", kind)
		assert.Same(t, &ps[0].readyItem, p)
	}
}

func TestMeasureRejectsBadRuns(t *testing.T) {
	for _, r := range []Run{
		{Kind: MPSC, Producers: 0, Events: 1},
		{Kind: Mutex, Producers: 1, Events: 0},
		{Kind: ListKind(9), Producers: 1, Events: 1},
		{Kind: MPSC, Variant: Variant(5), Producers: 1, Events: 1},
	} {
		_, err := Measure(context.Background(), r)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", r)
	}
}

func TestMeasureStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Measure(ctx, Run{Kind: MPSC, Producers: 4, Events: 200_000})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = Measure(ctx, Run{Kind: Mutex, Variant: Callback, Producers: 4, Events: 200_000})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = Compare(ctx, Options{Events: 10})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestCompareInterleavesAndSummarizes(t *testing.T) {
	var progress []int
	rep, err := Compare(context.Background(), Options{
		Producers: []int{2, 5}, Events: 2000, Repetitions: 3,
		Progress: func(done, total int) {
			assert.Equal(t, 24, total, "3 repetitions × 2 variants × 2 counts × 2 kinds")
			progress = append(progress, done)
		},
	})
	require.NoError(t, err)
	require.Len(t, progress, 24)
	for i, done := range progress {
		assert.Equal(t, i+1, done)
	}
	assert.Equal(t, 2000, rep.Events)
	assert.Equal(t, 3, rep.Repetitions)
	require.Len(t, rep.Rows, 4)
	for i, want := range []struct {
		variant   string
		producers int
	}{{"transition", 2}, {"transition", 5}, {"callback", 2}, {"callback", 5}} {
		row := rep.Rows[i]
		assert.Equal(t, want.variant, row.Variant)
		assert.Equal(t, want.producers, row.Producers)
		for _, st := range []Stats{row.MPSC, row.Mutex} {
			require.Len(t, st.Samples, 3)
			assert.Equal(t, stats.Summarize(st.Samples).Median, st.EventsPerMs, "stats' median of the runs")
			assert.Positive(t, st.RunTimeMs)
			assert.Positive(t, st.PushesPerMs)
		}
		assert.InDelta(t, row.MPSC.EventsPerMs/row.Mutex.EventsPerMs, row.Ratio, 1e-9)
	}
}

func TestCompareDefaultsAndValidation(t *testing.T) {
	o, err := Options{}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, []int{8, 16, 32}, o.Producers)
	assert.Equal(t, 10_000_000, o.Events)
	assert.Equal(t, 5, o.Repetitions)
	assert.Equal(t, []Variant{Transition, Callback}, o.Variants)
	for _, bad := range []Options{
		{Producers: []int{8, 0}},
		{Events: -1},
		{Repetitions: -2},
		{Variants: []Variant{Callback, 7}},
		{Variants: []Variant{Callback, Callback}},
	} {
		_, err := Compare(context.Background(), bad)
		assert.ErrorIs(t, err, seeds.ErrInvalidOptions, "%+v", bad)
	}
}

func TestListKindNames(t *testing.T) {
	for _, k := range []ListKind{MPSC, Mutex} {
		got, err := ParseListKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	_, err := ParseListKind("spin")
	assert.ErrorIs(t, err, seeds.ErrInvalidOptions)
	assert.Equal(t, "ListKind(4)", ListKind(4).String())
	for _, v := range []Variant{Transition, Callback} {
		got, err := ParseVariant(v.String())
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	_, err = ParseVariant("edge")
	assert.ErrorIs(t, err, seeds.ErrInvalidOptions)
	assert.Equal(t, "Variant(3)", Variant(3).String())
}

func TestCompareOneVariant(t *testing.T) {
	rep, err := Compare(context.Background(), Options{
		Producers: []int{3}, Events: 1000, Repetitions: 1, Variants: []Variant{Callback},
	})
	require.NoError(t, err)
	require.Len(t, rep.Rows, 1)
	assert.Equal(t, "callback", rep.Rows[0].Variant)
}
