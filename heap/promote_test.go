package heap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMinorCollectionsPreserveTheGraph(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var sums []uint64
		for _, seed := range []uint64{1, 2} {
			cfg := smallConfig()
			cfg.Seed = seed
			h := newHeap(t, cfg)
			require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.3, LOSFill: 0.3, Seed: seed}))
			promoters := make([]*Promoter, workers)
			for i := range promoters {
				promoters[i] = h.NewPromoter()
			}
			r := NewRand(seed)
			var promoted int64
			for gc := 0; gc < 30; gc++ {
				require.NoError(t, mutate(h, r, 5))
				before, err := h.Verify(VerifyOptions{})
				require.NoError(t, err)
				cards := minorCollect(t, h, promoters)
				after, err := h.Verify(VerifyOptions{AfterMinor: true, FullHeap: gc%10 == 0})
				require.NoError(t, err, "gc %d", gc)
				require.Equal(t, before, after, "a minor collection must not change the reachable graph")
				assert.Positive(t, cards)
				for _, p := range promoters {
					o, _ := p.TakeCounts()
					promoted += o
				}
				// Every seventh collection a major one too (the heap never fills
				// past 3/4 in 30 collections): it must free only garbage.
				if used, total := h.MajorUsage(); used > total*3/4 || gc%7 == 6 {
					_, err := h.MajorCollect()
					require.NoError(t, err)
					again, err := h.Verify(VerifyOptions{AfterMinor: true, FullHeap: true})
					require.NoError(t, err)
					require.Equal(t, after, again, "a major collection frees only garbage")
				}
			}
			assert.Positive(t, promoted)
			res, err := h.Verify(VerifyOptions{})
			require.NoError(t, err)
			sums = append(sums, res.Checksum)
		}
		assert.NotEqual(t, sums[0], sums[1], "different seeds give different graphs")
		t.Logf("workers %d: checksums %x", workers, sums)
	}
}

func TestChecksumIndependentOfWorkers(t *testing.T) {
	var want uint64
	for _, workers := range []int{1, 3} {
		h := newHeap(t, smallConfig())
		require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.3, LOSFill: 0.3, Seed: 3}))
		ps := make([]*Promoter, workers)
		for i := range ps {
			ps[i] = h.NewPromoter()
		}
		r := NewRand(9)
		for range 10 {
			require.NoError(t, mutate(h, r, 5))
			minorCollect(t, h, ps)
		}
		res, err := h.Verify(VerifyOptions{AfterMinor: true, FullHeap: true})
		require.NoError(t, err)
		if want == 0 {
			want = res.Checksum
		}
		assert.Equal(t, want, res.Checksum, "workers %d", workers)
	}
}

func TestPromotionFailsWithMajorHeapFull(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 2 * BlockSize
	h := newHeap(t, cfg)
	for i := range cfg.Roots {
		a, err := h.AllocNursery(1000, 0)
		if err != nil {
			break
		}
		h.WriteRoot(i, a)
	}
	h.PrepareCards()
	p := h.NewPromoter()
	h.ScanRootCards(p)
	p.Drain()
	require.ErrorIs(t, p.Err(), ErrMajorHeapFull)
	assert.Contains(t, p.Err().Error(), "MajorHeap")
}
