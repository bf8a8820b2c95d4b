package heap

import (
	"os"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gcCycles reads the host Go runtime's completed GC cycles.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestLargeHeapBuild is the at-scale check: the seed
// experiment's 2.5 GiB major heap filled to 60% plus a 1 GiB LOS (filled to
// 95%). It needs about 3 GiB of memory and several seconds, so it runs only
// with GCBENCH_LARGE=1:
//
//	GCBENCH_LARGE=1 go test -run TestLargeHeapBuild -v ./heap/
func TestLargeHeapBuild(t *testing.T) {
	if os.Getenv("GCBENCH_LARGE") != "1" {
		t.Skip("set GCBENCH_LARGE=1 to build the 2.5 GiB + 1 GiB heap")
	}
	rssStart := rss(t)
	gcStart := gcCycles()
	start := time.Now()
	h, err := New(DefaultConfig())
	require.NoError(t, err)
	defer func() { require.NoError(t, h.Close()) }()
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.6, LOSFill: 0.95, Seed: 1}))
	build := time.Since(start)
	gcs := gcCycles() - gcStart
	rssBuilt := rss(t)
	used, total := h.MajorUsage()
	losUsed, losTotal := h.LOSUsage()
	touched := int64(used)*BlockSize + int64(losUsed)*PageSize
	t.Logf("build: %v, host GC cycles during build: %d", build, gcs)
	t.Logf("major: %d of %d blocks (%.1f%%), LOS: %d of %d pages (%.1f%%), touched heap bytes %.0f MiB",
		used, total, 100*float64(used)/float64(total), losUsed, losTotal, 100*float64(losUsed)/float64(losTotal),
		float64(touched)/(1<<20))
	t.Logf("RSS: %.0f MiB before, %.0f MiB built = %.3f× touched (%.3f× counting only the growth)",
		float64(rssStart)/(1<<20), float64(rssBuilt)/(1<<20),
		float64(rssBuilt)/float64(touched), float64(rssBuilt-rssStart)/float64(touched))
	assert.LessOrEqual(t, float64(rssBuilt), 1.15*float64(touched))
	assert.LessOrEqual(t, gcs, uint64(2), "the heap lives off the Go heap")

	for i := range 3 {
		gcStart = gcCycles()
		start = time.Now()
		res, err := h.Verify(VerifyOptions{})
		require.NoError(t, err)
		t.Logf("verify %d: %v, %d reachable objects, %.0f MiB, checksum %x, host GCs %d",
			i, time.Since(start), res.Objects, float64(res.Bytes)/(1<<20), res.Checksum, gcCycles()-gcStart)
	}
	start = time.Now()
	_, err = h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err)
	t.Logf("verify with full-heap walk: %v", time.Since(start))

	ps := []*Promoter{h.NewPromoter(), h.NewPromoter()}
	r := NewRand(1)
	for i := range 3 {
		require.NoError(t, mutate(h, r, 5))
		start = time.Now()
		cards := minorCollect(t, h, ps)
		var objs int64
		for _, p := range ps {
			o, _ := p.TakeCounts()
			objs += o
		}
		t.Logf("minor %d (2 goroutines, test driver): %v, %d dirty cards, %d objects promoted", i, time.Since(start), cards, objs)
	}
	start = time.Now()
	st, err := h.MajorCollect()
	require.NoError(t, err)
	t.Logf("major collection: %v, %d live objects, %d freed", time.Since(start), st.LiveObjects, st.FreedObjects)
	t.Logf("RSS before Close: %.0f MiB", float64(rss(t))/(1<<20))
	require.NoError(t, h.Close())
	t.Logf("RSS after Close: %.0f MiB", float64(rss(t))/(1<<20))
}

// BenchmarkPopulate builds the 2.5 GiB + 1 GiB heap once per iteration
// (GCBENCH_LARGE=1 only), reporting build time and RSS per touched byte.
func BenchmarkPopulate(b *testing.B) {
	if os.Getenv("GCBENCH_LARGE") != "1" {
		b.Skip("set GCBENCH_LARGE=1 to build the 2.5 GiB + 1 GiB heap")
	}
	for b.Loop() {
		h, err := New(DefaultConfig())
		require.NoError(b, err)
		require.NoError(b, h.Populate(PopulateConfig{MajorFill: 0.6, LOSFill: 0.95, Seed: 1}))
		used, _ := h.MajorUsage()
		losUsed, _ := h.LOSUsage()
		b.ReportMetric(float64(rss(b))/float64(int64(used)*BlockSize+int64(losUsed)*PageSize), "rss/touched")
		require.NoError(b, h.Close())
	}
}
