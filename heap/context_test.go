package heap

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cancelAfter is a context whose Err reports context.Canceled from its n-th
// call on, so a test can count how often a phase looks at its context and
// stop it at a known look. Not safe for concurrent use: the phases it
// serves run on one goroutine.
type cancelAfter struct {
	context.Context
	n, calls int
}

func newCancelAfter(n int) *cancelAfter { return &cancelAfter{Context: context.Background(), n: n} }

func (c *cancelAfter) Err() error {
	if c.calls++; c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// touched is the memory the heap's old generation occupies.
func touched(h *Heap) int64 {
	used, _ := h.MajorUsage()
	losUsed, _ := h.LOSUsage()
	return int64(used)*BlockSize + int64(losUsed)*PageSize
}

var fillHalf = PopulateConfig{MajorFill: 0.6, LOSFill: 0.5, Seed: 3}

// TestPopulateLooksAtTheContextEveryMiB: a full population looks at its
// context at least once per MiB built, and one told to stop at its third
// look stops there, leaving a smaller but valid, connected heap.
func TestPopulateLooksAtTheContextEveryMiB(t *testing.T) {
	full := newHeap(t, smallConfig())
	counter := newCancelAfter(math.MaxInt)
	require.NoError(t, full.PopulateContext(counter, fillHalf))
	assert.GreaterOrEqual(t, int64(counter.calls), touched(full)/pollBytes-1, "looks at the context once per MiB")

	h := newHeap(t, smallConfig())
	err := h.PopulateContext(newCancelAfter(3), fillHalf)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "interrupted")
	assert.Less(t, touched(h), touched(full)/2)
	res, err := h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err, "an interrupted population leaves a valid heap")
	assert.Positive(t, res.Objects)
	_, err = h.MajorCollect()
	require.NoError(t, err)
}

// TestPopulateStopsSoonAfterCancel is the liveness check: a
// population of gigabytes returns within a generous bound of the cancel.
// Only what was built before the cancel is touched, a few hundred MiB.
func TestPopulateStopsSoonAfterCancel(t *testing.T) {
	h := newHeap(t, Config{MajorHeap: 2 << 30, LOS: 512 << 20, Nursery: DefaultNursery, Roots: DefaultRoots, Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Int64
	time.AfterFunc(50*time.Millisecond, func() {
		cancelled.Store(time.Now().UnixNano())
		cancel()
	})
	err := h.PopulateContext(ctx, PopulateConfig{MajorFill: 0.9, LOSFill: 0.9, Seed: 1})
	require.ErrorIs(t, err, context.Canceled)
	latency := time.Since(time.Unix(0, cancelled.Load()))
	assert.Less(t, latency, 3*time.Second, "returned %v after the cancel", latency)
}

// TestInterruptedMajorCollectionLeavesOnlyClose: a major collection looks
// at its context all along its mark and its sweep; interrupted, it leaves a
// heap whose whole-heap phases refuse to run, and Close still works.
func TestInterruptedMajorCollectionLeavesOnlyClose(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 32 << 20 // megabytes of marking work
	whole := newHeap(t, cfg)
	require.NoError(t, whole.Populate(fillHalf))
	counter := newCancelAfter(math.MaxInt)
	_, err := whole.MajorCollectContext(counter)
	require.NoError(t, err)
	used, _ := whole.MajorUsage()
	assert.Greater(t, int64(counter.calls), int64(used)*BlockSize/pollBytes, "the sweep looks once per MiB of blocks, the mark too")

	for _, stop := range []struct {
		look   int
		inMark bool
	}{{1, true}, {counter.calls - 1, false}} {
		h, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, h.Populate(fillHalf))
		st, err := h.MajorCollectContext(newCancelAfter(stop.look))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, stop.inMark, st.LiveObjects == 0, "look %d: the sweep counts live objects", stop.look)
		_, err = h.MajorCollect()
		assert.ErrorIs(t, err, ErrInterrupted)
		_, err = h.Verify(VerifyOptions{})
		assert.ErrorIs(t, err, ErrInterrupted)
		assert.ErrorIs(t, h.Populate(fillHalf), ErrInterrupted)
		require.NoError(t, h.Close())
		_, err = h.MajorCollect()
		assert.ErrorIs(t, err, ErrClosed)
	}
}

// TestInterruptedVerifyLeavesTheHeapAsItWas: the verifier looks at its
// context in both walks; interrupted, it returns no checksum and restores
// every visit mark, so the next verification finds the same graph.
func TestInterruptedVerifyLeavesTheHeapAsItWas(t *testing.T) {
	h, want := builtHeap(t)
	reachable, all := newCancelAfter(math.MaxInt), newCancelAfter(math.MaxInt)
	_, err := h.VerifyContext(reachable, VerifyOptions{})
	require.NoError(t, err)
	_, err = h.VerifyContext(all, VerifyOptions{FullHeap: true})
	require.NoError(t, err)
	assert.Positive(t, reachable.calls)
	assert.Greater(t, all.calls, reachable.calls, "the full-heap walk looks at the context too")

	for _, n := range []int{1, reachable.calls + 1} { // in the reachable walk, then in the full-heap walk
		res, err := h.VerifyContext(newCancelAfter(n), VerifyOptions{FullHeap: true})
		require.ErrorIs(t, err, context.Canceled, "stop at look %d", n)
		assert.NotErrorIs(t, err, ErrVerify)
		assert.Zero(t, res)
		again, err := h.Verify(VerifyOptions{FullHeap: true})
		require.NoError(t, err)
		assert.Equal(t, want, again)
	}
}
