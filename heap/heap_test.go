package heap

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
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

// TestConfigValidateNamesTheField: every check reports a *ConfigError
// naming the field, the value as given and a bound stated as a number.
func TestConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, value, want string
		edit               func(*Config)
	}{
		{"MajorHeap", "0B", "> 0", func(c *Config) { c.MajorHeap = 0 }},
		{"MajorHeap", "-16KiB", "> 0", func(c *Config) { c.MajorHeap = -BlockSize }},
		{"MajorHeap", "16385B", "a multiple of 16KiB", func(c *Config) { c.MajorHeap = BlockSize + 1 }},
		{"MajorHeap", "1024TiB", "≤ 64TiB", func(c *Config) { c.MajorHeap = 1 << 50 }},
		{"LOS", "0B", "> 0", func(c *Config) { c.LOS = 0 }},
		{"LOS", "4104B", "a multiple of 4KiB", func(c *Config) { c.LOS = PageSize + 8 }},
		{"LOS", "65TiB", "≤ 64TiB", func(c *Config) { c.LOS = 65 << 40 }},
		{"Nursery", "4KiB", "≥ 64KiB", func(c *Config) { c.Nursery = 4096 }},
		{"Nursery", "65537B", "a multiple of 4KiB", func(c *Config) { c.Nursery = MinNursery + 1 }},
		{"Nursery", "80TiB", "≤ 64TiB", func(c *Config) { c.Nursery = 80 << 40 }},
		{"Roots", "0", "1..16777216", func(c *Config) { c.Roots = 0 }},
		{"Roots", "1073741824", "1..16777216", func(c *Config) { c.Roots = 1 << 30 }},
		// The sum is blamed on the largest space, with the most it may be.
		{"MajorHeap", "40TiB", "≤ 33.875TiB,", func(c *Config) { c.MajorHeap, c.LOS = 40<<40, 30<<40 }},
	} {
		cfg := smallConfig()
		tc.edit(&cfg)
		err := cfg.Validate()
		require.ErrorIs(t, err, ErrInvalidConfig, tc.field)
		var ce *ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, tc.field, ce.Field)
		assert.Equal(t, tc.value, ce.Value, tc.field)
		assert.Contains(t, ce.Want, tc.want, tc.field)
		assert.Equal(t, "invalid heap configuration: "+tc.field+" = "+tc.value+", want "+ce.Want, err.Error())
		_, err = New(cfg)
		assert.ErrorAs(t, err, &ce)
	}
	require.NoError(t, DefaultConfig().Validate())
}

func TestPopulateConfigValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field, want string
		edit        func(*PopulateConfig)
	}{
		{"PopulateConfig.MajorFill", "≤ 0.95", func(c *PopulateConfig) { c.MajorFill = 0.96 }},
		{"PopulateConfig.MajorFill", "0 ≤", func(c *PopulateConfig) { c.MajorFill = math.NaN() }},
		{"PopulateConfig.LOSFill", "≤ 0.95", func(c *PopulateConfig) { c.LOSFill = -0.5 }},
		{"PopulateConfig.Roots", "≥ 0", func(c *PopulateConfig) { c.Roots = -1 }},
		{"PopulateConfig.MaxLargeObject", "≥ 8192", func(c *PopulateConfig) { c.MaxLargeObject = 100 }},
	} {
		pc := DefaultPopulateConfig()
		tc.edit(&pc)
		var ce *ConfigError
		require.ErrorAs(t, pc.Validate(), &ce, tc.field)
		assert.Equal(t, tc.field, ce.Field)
		assert.Contains(t, ce.Want, tc.want)
		assert.ErrorIs(t, newHeap(t, smallConfig()).Populate(pc), ErrInvalidConfig)
	}
	require.NoError(t, DefaultPopulateConfig().Validate())
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0B", 1000: "1000B", 1024: "1KiB", 1536: "1.5KiB", 4097: "4097B", 16 << 10: "16KiB",
		2560 << 20: "2.5GiB", 2621441 << 10: "2621441KiB", 64 << 40: "64TiB", -(4 << 20): "-4MiB",
		(1 << 30) + (1 << 20): "1025MiB", 1<<30 + 1<<27: "1.125GiB",
	} {
		assert.Equal(t, want, FormatSize(n), "%d", n)
	}
}

func TestNewTooLargeForTheMachineNamesTheSettings(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 1 << 44 // 16 TiB: valid, but more than this machine's memory
	require.NoError(t, cfg.Validate())
	_, err := New(cfg)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "MajorHeap")
	assert.Contains(t, err.Error(), "LOS")
}

func TestSpaceOfMapsEveryRegion(t *testing.T) {
	h := newHeap(t, smallConfig())
	for _, s := range []Space{SpaceRoots, SpaceNursery, SpaceMajor, SpaceLOS} {
		lo, hi := h.Bounds(s)
		require.Less(t, lo, hi)
		assert.Equal(t, s, h.SpaceOf(lo), "first byte of %v", s)
		assert.Equal(t, s, h.SpaceOf(hi-1), "last byte of %v", s)
		assert.Equal(t, s, h.SpaceOf(lo+(hi-lo)/2), "middle of %v", s)
		assert.Equal(t, s == SpaceNursery, h.InNursery(lo))
	}
	assert.Equal(t, SpaceNone, h.SpaceOf(Nil))
	assert.Equal(t, SpaceNone, h.SpaceOf(8))
	_, end := h.Bounds(SpaceLOS)
	assert.Equal(t, SpaceNone, h.SpaceOf(end))
	_, majorEnd := h.Bounds(SpaceMajor)
	losLo, _ := h.Bounds(SpaceLOS)
	assert.Equal(t, majorEnd, losLo)
	majorLo, _ := h.Bounds(SpaceMajor)
	assert.Zero(t, majorLo%BlockSize, "blocks are block-aligned")
	assert.Zero(t, losLo%PageSize)
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

func TestCloseReturnsMemory(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 256 << 20
	h, err := New(cfg)
	require.NoError(t, err)
	before := rss(t)
	require.NoError(t, h.Populate(PopulateConfig{MajorFill: 0.5, LOSFill: 0.5, Seed: 1}))
	touched := rss(t) - before
	require.Greater(t, touched, int64(100<<20), "populating 128 MiB must touch memory")
	require.NoError(t, h.Close())
	after := rss(t)
	assert.Less(t, after-before, touched/10, "RSS must drop after Close: before %d, filled +%d, after +%d", before, touched, after-before)
	require.NoError(t, h.Close(), "Close is idempotent")
	_, err = h.Verify(VerifyOptions{})
	assert.ErrorIs(t, err, ErrClosed)
}

func TestAllocationShapesAreChecked(t *testing.T) {
	h := newHeap(t, smallConfig())
	_, err := h.AllocMajor(8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(32, 3)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(16, -1)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocMajor(MaxSmallObject+8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocLOS(MaxSmallObject, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	_, err = h.AllocNursery(MaxSmallObject+8, 0)
	assert.ErrorIs(t, err, ErrBadObject)
	// Slot counts whose byte size overflows an int must be refused, not
	// wrap negative and pass the size check.
	for _, nrefs := range []int{1<<60 + 1<<29, 1<<61 + 1, math.MaxInt} {
		_, err = h.AllocMajor(24, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
		_, err = h.AllocLOS(1<<20, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
		_, err = h.AllocNursery(24, nrefs)
		assert.ErrorIs(t, err, ErrBadObject, "nrefs %d", nrefs)
	}
	_, err = h.AllocLOS(math.MaxInt, 0)
	assert.ErrorIs(t, err, ErrBadObject)
}

func TestObjectLayoutAndPayload(t *testing.T) {
	h := newHeap(t, smallConfig())
	a, err := h.AllocMajor(ObjectSize(3, 20), 3)
	require.NoError(t, err)
	assert.Equal(t, SpaceMajor, h.SpaceOf(a))
	assert.Equal(t, 64, h.Size(a))
	assert.Equal(t, 3, h.NumRefs(a))
	assert.Len(t, h.Payload(a), 24)
	for i := range 3 {
		assert.Equal(t, Nil, h.Ref(a, i))
	}
	b, err := h.AllocMajor(64, 3)
	require.NoError(t, err)
	assert.NotEqual(t, h.Payload(a), h.Payload(b), "payloads differ per object")
	h.WriteRef(a, 1, b)
	assert.Equal(t, b, h.Ref(a, 1))
	assert.False(t, h.CardMarked(SlotAddr(a, 1)), "old→old stores mark no card")
}

func TestMajorFreeListsAndFullHeap(t *testing.T) {
	cfg := smallConfig()
	cfg.MajorHeap = 4 * BlockSize
	h := newHeap(t, cfg)
	_, stride, _ := SizeClass(1000)
	per := BlockSize / stride
	var objs []Addr
	for {
		a, err := h.AllocMajor(1000, 1)
		if err != nil {
			require.ErrorIs(t, err, ErrMajorHeapFull)
			assert.Contains(t, err.Error(), "MajorHeap")
			break
		}
		objs = append(objs, a)
	}
	require.Len(t, objs, 4*per)
	used, total := h.MajorUsage()
	assert.Equal(t, [2]int{4, 4}, [2]int{used, total})
	// Keep every other object of the first block alive and one object in
	// the second; the rest is garbage.
	for i := 0; i < per; i += 2 {
		h.WriteRoot(i, objs[i])
	}
	h.WriteRoot(per, objs[per])
	st, err := h.MajorCollect()
	require.NoError(t, err)
	live := int64((per+1)/2 + 1)
	assert.Equal(t, live, st.LiveObjects)
	assert.Equal(t, int64(len(objs))-live, st.FreedObjects)
	assert.Equal(t, 2, st.UsedBlocks, "fully dead blocks are empty again")
	// Freed slots are reused: 2 empty blocks plus the holes in the first two.
	n := 0
	for ; ; n++ {
		if _, err := h.AllocMajor(1000, 0); err != nil {
			require.ErrorIs(t, err, ErrMajorHeapFull)
			break
		}
	}
	assert.Equal(t, len(objs)-int(live), n)
	_, err = h.Verify(VerifyOptions{FullHeap: true})
	require.NoError(t, err)
}

func TestLOSAllocFreeAndFull(t *testing.T) {
	cfg := smallConfig()
	cfg.LOS = 16 * PageSize
	h := newHeap(t, cfg)
	a, err := h.AllocLOS(3*PageSize, 10)
	require.NoError(t, err)
	b, err := h.AllocLOS(5*PageSize, 10)
	require.NoError(t, err)
	c, err := h.AllocLOS(8*PageSize, 10)
	require.NoError(t, err)
	for _, o := range []Addr{a, b, c} {
		assert.Equal(t, SpaceLOS, h.SpaceOf(o))
		assert.Zero(t, o%PageSize, "LOS objects are page-aligned")
	}
	_, err = h.AllocLOS(MaxSmallObject+8, 0)
	require.ErrorIs(t, err, ErrLOSFull)
	assert.Contains(t, err.Error(), "LOS")
	assert.Equal(t, 3, h.LOSObjects())
	h.WriteRoot(0, b)
	_, err = h.MajorCollect()
	require.NoError(t, err)
	used, _ := h.LOSUsage()
	assert.Equal(t, 5, used)
	assert.Equal(t, Nil, h.LOSObject(0), "freed objects leave holes")
	// The 3 free pages before b and 8 after are separate runs: 9 pages fail, 8 fit.
	_, err = h.AllocLOS(9*PageSize, 0)
	require.ErrorIs(t, err, ErrLOSFull)
	d, err := h.AllocLOS(8*PageSize, 0)
	require.NoError(t, err)
	assert.Equal(t, c, d, "first fit reuses the freed run")
	assert.Equal(t, 3, h.LOSObjects(), "holes are reused")
	h.WriteRoot(0, Nil)
	_, err = h.MajorCollect()
	require.NoError(t, err)
	e, err := h.AllocLOS(16*PageSize, 0)
	require.NoError(t, err, "free runs coalesce")
	assert.Equal(t, a, e)
}

func TestNurseryBumpAndReset(t *testing.T) {
	h := newHeap(t, smallConfig())
	a, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	b, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	assert.Equal(t, a+48, b)
	assert.True(t, h.InNursery(a))
	n := 2
	for ; ; n++ {
		if _, err = h.AllocNursery(4096, 0); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, ErrNurseryFull)
	assert.LessOrEqual(t, h.NurseryUsed(), smallConfig().Nursery)
	_, err = h.MajorCollect()
	assert.ErrorIs(t, err, ErrNurseryNotEmpty, "a major collection needs an empty nursery")
	h.PrepareCards()
	h.ResetNursery()
	assert.Zero(t, h.NurseryUsed())
	c, err := h.AllocNursery(48, 2)
	require.NoError(t, err)
	assert.Equal(t, a, c)
}

// recorder is a SlotVisitor that records the slots it is given.
type recorder struct{ slots []Addr }

func (r *recorder) VisitSlot(s Addr) { r.slots = append(r.slots, s) }

func TestCardsShadowCopyAndClear(t *testing.T) {
	h := newHeap(t, smallConfig())
	old, err := h.AllocMajor(64, 4)
	require.NoError(t, err)
	young, err := h.AllocNursery(32, 0)
	require.NoError(t, err)
	h.WriteRef(old, 2, young)
	h.WriteRoot(5, young)
	assert.True(t, h.CardMarked(SlotAddr(old, 2)))
	assert.True(t, h.CardMarked(h.RootAddr(5)))
	nurseryObj, err := h.AllocNursery(32, 1)
	require.NoError(t, err)
	h.WriteRef(nurseryObj, 0, young)
	assert.False(t, h.CardMarked(SlotAddr(nurseryObj, 0)), "nursery→nursery stores mark no card")

	h.PrepareCards()
	assert.False(t, h.CardMarked(SlotAddr(old, 2)), "live cards are cleared")
	assert.False(t, h.CardMarked(h.RootAddr(5)))
	assert.True(t, h.ShadowMarked(SlotAddr(old, 2)), "the shadow holds the marks")
	assert.True(t, h.ShadowMarked(h.RootAddr(5)))
	var r recorder
	assert.Equal(t, 1, h.ScanBlockCards(0, h.ScanBlocks(), &r))
	assert.Equal(t, []Addr{SlotAddr(old, 0), SlotAddr(old, 1), SlotAddr(old, 2), SlotAddr(old, 3)}, r.slots,
		"small objects under a marked card are scanned whole")
	r.slots = nil
	assert.Equal(t, 1, h.ScanRootCards(&r))
	assert.Len(t, r.slots, CardSize/SlotSize, "every root under the marked card")
	assert.Contains(t, r.slots, h.RootAddr(5))
}

func TestScanBlockCardsVisitsKnownSlots(t *testing.T) {
	h := newHeap(t, smallConfig())
	// Class 48: objects straddle card boundaries. Fill one block.
	_, stride, _ := SizeClass(48)
	per := BlockSize / stride
	objs := make([]Addr, per)
	for i := range objs {
		var err error
		objs[i], err = h.AllocMajor(48, 4)
		require.NoError(t, err)
	}
	// A 2000-byte class: objects span several cards.
	big := make([]Addr, 4)
	for i := range big {
		var err error
		big[i], err = h.AllocMajor(2000, 200)
		require.NoError(t, err)
	}
	// A block with no references at all.
	plain, err := h.AllocMajor(100, 0)
	require.NoError(t, err)
	young, err := h.AllocNursery(16, 0)
	require.NoError(t, err)

	straddler := -1
	for i, o := range objs {
		if o/CardSize != (o+Addr(stride)-1)/CardSize && SlotAddr(o, 3)/CardSize != o/CardSize {
			straddler = i
			break
		}
	}
	require.GreaterOrEqual(t, straddler, 0)
	s := objs[straddler]
	h.WriteRef(s, 3, young) // marks the card after the one s starts in
	h.WriteRef(big[1], 150, young)
	h.PrepareCards()
	_ = plain

	var r recorder
	cards := h.ScanBlockCards(0, h.ScanBlocks(), &r)
	assert.Equal(t, 2, cards)
	want := map[Addr]bool{}
	card := SlotAddr(s, 3) / CardSize
	for _, o := range objs {
		if o/CardSize <= card && (o+Addr(stride)-1)/CardSize >= card {
			for k := range 4 {
				want[SlotAddr(o, k)] = true
			}
		}
	}
	bigCard := SlotAddr(big[1], 150) / CardSize
	for k := range 200 {
		if SlotAddr(big[1], k)/CardSize == bigCard {
			want[SlotAddr(big[1], k)] = true
		}
	}
	got := map[Addr]bool{}
	for _, a := range r.slots {
		assert.False(t, got[a], "slot %#x visited twice", a)
		got[a] = true
	}
	assert.Equal(t, want, got)
	// A range that excludes the dirty blocks visits nothing.
	r.slots = nil
	b := h.BlockOf(s)
	assert.Zero(t, h.ScanBlockCards(b+1, b+1, &r))
	assert.Empty(t, r.slots)
}

func TestScanLOSCardsVisitsOnlyMarkedCards(t *testing.T) {
	h := newHeap(t, smallConfig())
	var objs []Addr
	for range 5 {
		a, err := h.AllocLOS(5*PageSize, 2000)
		require.NoError(t, err)
		objs = append(objs, a)
	}
	young, err := h.AllocNursery(16, 0)
	require.NoError(t, err)
	h.WriteRef(objs[1], 0, young)
	h.WriteRef(objs[1], 1999, young)
	h.WriteRef(objs[3], 700, young)
	h.PrepareCards()
	require.Equal(t, 5, h.ScanLOSObjects())
	var r recorder
	assert.Equal(t, 2, h.ScanLOSCards(0, 2, &r))
	slotsPerCard := CardSize / SlotSize
	assert.Len(t, r.slots, (slotsPerCard-2)+(1999-(slotsPerCard*31-2)+1),
		"the first card holds the header and 62 slots; slot 1999 is in card 31")
	assert.Contains(t, r.slots, SlotAddr(objs[1], 0))
	assert.Contains(t, r.slots, SlotAddr(objs[1], 1999))
	r.slots = nil
	assert.Equal(t, 1, h.ScanLOSCards(2, 5, &r))
	assert.Len(t, r.slots, slotsPerCard)
	assert.Contains(t, r.slots, SlotAddr(objs[3], 700))
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
				if used, total := h.MajorUsage(); used > total*3/4 {
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
