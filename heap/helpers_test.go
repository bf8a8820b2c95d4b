package heap

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallConfig is a heap small enough for -race tests.
func smallConfig() Config {
	return Config{MajorHeap: 8 << 20, LOS: 4 << 20, Nursery: 256 << 10, Roots: 256, Seed: 7}
}

func newHeap(t testing.TB, cfg Config) *Heap {
	t.Helper()
	h, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return h
}

// rss returns the process's resident set in bytes.
func rss(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}

// minorCollect runs one minor collection with the given number of
// concurrent workers, each scanning interleaved block and LOS ranges.
func minorCollect(t testing.TB, h *Heap, promoters []*Promoter) (cards int) {
	h.PrepareCards()
	parts := 4 * len(promoters)
	var wg sync.WaitGroup
	counts := make([]int, len(promoters))
	for w, p := range promoters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w == 0 {
				counts[w] += h.ScanRootCards(p)
				p.Drain()
			}
			for i := w; i < parts; i += len(promoters) {
				lo, hi := i*h.ScanBlocks()/parts, (i+1)*h.ScanBlocks()/parts
				counts[w] += h.ScanBlockCards(lo, hi, p)
				p.Drain()
				lo, hi = i*h.ScanLOSObjects()/parts, (i+1)*h.ScanLOSObjects()/parts
				counts[w] += h.ScanLOSCards(lo, hi, p)
				p.Drain()
			}
		}()
	}
	wg.Wait()
	for w, p := range promoters {
		require.NoError(t, p.Err())
		p.Release()
		cards += counts[w]
	}
	h.ResetNursery()
	return cards
}

// mutate allocates nursery objects linked to each other and stores some of
// them into old objects and roots through the barrier.
func mutate(h *Heap, r *Rand, stores int) error {
	var recent [64]Addr
	n := 0
	for {
		size, nrefs := r.SmallShape()
		a, err := h.AllocNursery(size, nrefs)
		if errors.Is(err, ErrNurseryFull) {
			return nil
		}
		if err != nil {
			return err
		}
		for s := 0; s < nrefs; s++ {
			if v := recent[r.Intn(len(recent))]; v != Nil && r.Intn(3) == 0 {
				h.WriteRef(a, s, v)
			}
		}
		recent[n%len(recent)] = a
		n++
		if r.Intn(100) < stores {
			i := r.Intn(h.NumRoots())
			old := h.Root(i)
			if old != Nil && h.NumRefs(old) > 0 && r.Intn(4) > 0 {
				h.WriteRef(old, r.Intn(h.NumRefs(old)), a)
			} else {
				h.WriteRoot(i, a)
			}
		}
	}
}
