package gcsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/workerpool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tinyConfig is a heap small enough for -race tests, with the mutator
// scaled to its nursery: a few hundred barrier stores and about 4% survival.
func tinyConfig(seed uint64, majorMiB int64) Config {
	c := DefaultConfig()
	c.MajorHeap, c.LOS, c.Nursery, c.Roots = majorMiB<<20, majorMiB<<18, 128<<10, 512
	c.Workers = 2
	c.Backend = workerpool.Goroutines
	c.Seed = seed
	c.Verify = true
	c.Mutator.BarrierStores = 300
	c.Mutator.Published = 12
	c.Mutator.MaxLargeObject = 24 << 10
	return c
}

func newSim(t testing.TB, cfg Config) *Sim {
	t.Helper()
	s, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// run does n mutator phases and collections in mode and returns the final checksum.
func run(t testing.TB, s *Sim, modes []Mode, n int) uint64 {
	t.Helper()
	for i := range n {
		require.NoError(t, s.Mutate())
		_, err := s.Collect(modes[i%len(modes)])
		require.NoError(t, err, "collection %d", i)
	}
	sum, err := s.Checksum()
	require.NoError(t, err)
	return sum
}

// testBackends lists the pool backends this OS supports: Threads is
// Linux-only.
func testBackends() []workerpool.Backend {
	bs := []workerpool.Backend{workerpool.Goroutines}
	if runtime.GOOS == "linux" {
		bs = append(bs, workerpool.Threads)
	}
	if workerpool.NativeAvailable {
		bs = append(bs, workerpool.Native)
	}
	return bs
}

// TestChecksumsIdenticalThroughMajorsAndAFullLOS: a heap small enough that
// major collections come at different collections for 1 and 8 workers and
// for a serial and a parallel mode (their thresholds and their blocks'
// packing differ), and that the LOS fills up, so that some large
// allocations need a major collection first: the graph must stay the same
// collection after collection all the same.
func TestChecksumsIdenticalThroughMajorsAndAFullLOS(t *testing.T) {
	cfgOf := func(workers int) Config {
		c := DefaultConfig()
		c.MajorHeap, c.LOS, c.Nursery, c.Roots = 4<<20, 4<<20, 128<<10, 512
		c.Workers, c.Backend, c.Seed = workers, workerpool.Goroutines, 5
		c.Mutator.BarrierStores, c.Mutator.Published, c.Mutator.MaxLargeObject = 300, 12, 24<<10
		return c
	}
	type run struct {
		s    *Sim
		mode Mode
	}
	runs := []run{{newSim(t, cfgOf(1)), Batch}, {newSim(t, cfgOf(8)), Batch}, {newSim(t, cfgOf(8)), Serial}}
	majorsDiffered := false
	for i := 1; i <= 300; i++ {
		var sums []uint64
		var majors []int
		for _, r := range runs {
			require.NoError(t, r.s.Mutate())
			_, err := r.s.Collect(r.mode)
			require.NoError(t, err)
			sum, err := r.s.Checksum()
			require.NoError(t, err)
			sums, majors = append(sums, sum), append(majors, r.s.MajorGCs())
		}
		require.Equal(t, sums[0], sums[1], "collection %d: 1 and 8 workers (major collections so far %v)", i, majors)
		require.Equal(t, sums[1], sums[2], "collection %d: batch and serial (major collections so far %v)", i, majors)
		majorsDiffered = majorsDiffered || majors[0] != majors[1] || majors[1] != majors[2]
	}
	assert.True(t, majorsDiffered, "the runs' major collections never came at different times: the test tests nothing")
}

// TestChecksumsIdenticalAcrossModesWorkersBackends: for the same seed and
// size, the reachable graph after N collections is the same whatever the
// dispatch mode, worker count and backend; Verify (on in tinyConfig)
// checks every collection against the graph before it.
func TestChecksumsIdenticalAcrossModesWorkersBackends(t *testing.T) {
	for _, shape := range []struct {
		seed     uint64
		majorMiB int64
	}{{1, 4}, {2, 6}} {
		var want uint64
		var wantFrom string
		sums := map[uint64]bool{}
		for _, backend := range testBackends() {
			for _, workers := range []int{1, 2, 8} {
				for _, mode := range Modes() {
					cfg := tinyConfig(shape.seed, shape.majorMiB)
					cfg.Workers, cfg.Backend = workers, backend
					name := fmt.Sprintf("seed %d, %d MiB, %s, %d workers, %s", shape.seed, shape.majorMiB, backend, workers, mode)
					s := newSim(t, cfg)
					got := run(t, s, []Mode{mode}, 8)
					require.NoError(t, s.Close())
					if want == 0 {
						want, wantFrom = got, name
					}
					require.Equal(t, want, got, "%s differs from %s", name, wantFrom)
				}
			}
		}
		// Interleaving the modes on one heap gives the same graph too.
		s := newSim(t, tinyConfig(shape.seed, shape.majorMiB))
		assert.Equal(t, want, run(t, s, Modes(), 8), "interleaved modes")
		sums[want] = true
		t.Logf("seed %d, %d MiB: checksum %x", shape.seed, shape.majorMiB, want)
	}
}

func TestSeedsGiveDifferentGraphs(t *testing.T) {
	a := run(t, newSim(t, tinyConfig(1, 4)), []Mode{Serial}, 3)
	b := run(t, newSim(t, tinyConfig(2, 4)), []Mode{Serial}, 3)
	assert.NotEqual(t, a, b)
}

func TestJobListFor8Workers(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.Workers = 8
	s := newSim(t, cfg)
	js := s.Jobs()
	require.Len(t, js, 65, "1 roots job + 32 block jobs + 32 LOS jobs")
	require.IsType(t, &rootsJob{}, js[0])
	for i := 1; i <= 32; i++ {
		require.IsType(t, &blockJob{}, js[i])
		assert.Equal(t, blockJob{s, i - 1, 32}, *js[i].(*blockJob))
		require.IsType(t, &losJob{}, js[32+i])
		assert.Equal(t, losJob{s, i - 1, 32}, *js[32+i].(*losJob))
	}
}

// TestJobsCoverEveryBlockAndLOSObjectOnce dirties a card in every reachable
// old object's first slot, then runs the 65 jobs: the dirty cards they
// report must equal the distinct dirty cards exactly (a block or LOS object
// scanned by two jobs would count twice, a missed one not at all), and the
// collection must leave no old→nursery reference.
func TestJobsCoverEveryBlockAndLOSObjectOnce(t *testing.T) {
	for _, mode := range Modes() {
		cfg := tinyConfig(3, 4)
		cfg.Workers, cfg.LOS = 8, 2<<20
		cfg.Verify = false
		s := newSim(t, cfg)
		h := s.Heap()
		young, err := h.AllocNursery(64, 1)
		require.NoError(t, err)
		cards := map[heap.Addr]bool{}
		blocks := map[int]bool{}
		los := 0
		seen := map[heap.Addr]bool{}
		var queue []heap.Addr
		for i := range h.NumRoots() {
			if o := h.Root(i); o != heap.Nil && !seen[o] {
				seen[o] = true
				queue = append(queue, o)
			}
		}
		for len(queue) > 0 {
			o := queue[0]
			queue = queue[1:]
			n := h.NumRefs(o)
			for k := range n {
				if c := h.Ref(o, k); c != heap.Nil && !seen[c] {
					seen[c] = true
					queue = append(queue, c)
				}
			}
			if n > 0 {
				h.WriteRef(o, 0, young)
				cards[heap.SlotAddr(o, 0)/heap.CardSize] = true
				if h.SpaceOf(o) == heap.SpaceMajor {
					blocks[h.BlockOf(o)] = true
				} else {
					los++
				}
			}
		}
		require.Greater(t, len(blocks), 65, "enough blocks for every job")
		require.Greater(t, los, 32)
		rec, err := s.Collect(mode)
		require.NoError(t, err)
		assert.Equal(t, len(cards), rec.DirtyCards, "%s: each dirty card scanned exactly once", mode)
		assert.Equal(t, int64(1), rec.PromotedObjects, "one object promoted once")
		_, err = h.Verify(heap.VerifyOptions{AfterMinor: true, FullHeap: true})
		require.NoError(t, err)
		if mode != Serial {
			assert.Equal(t, uint64(65), rec.Pool.TotalJobsRun())
		}
	}
}

// TestPoolCountersPerCollection: on the Threads backend the enqueue side of
// a batch collection is 1 lock acquisition and 1 wake call, and Start
// wakes once more (2 in all); a startbatch collection's one lock and one
// wake are all it makes; per-job dispatch is 65 and 65, and Start's.
func TestPoolCountersPerCollection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Threads backend needs Linux")
	}
	cfg := tinyConfig(4, 4)
	cfg.Workers, cfg.Backend, cfg.Wake = 8, workerpool.Threads, workerpool.Broadcast
	s := newSim(t, cfg)
	for range 3 {
		for _, mode := range []Mode{Batch, PerJob, Serial, StartBatch} {
			require.NoError(t, s.Mutate())
			rec, err := s.Collect(mode)
			require.NoError(t, err)
			switch mode {
			case Batch, StartBatch:
				assert.Equal(t, uint64(1), rec.Pool.EnqueueLockAcquisitions)
				assert.Equal(t, uint64(1), rec.Pool.EnqueueWakeCalls)
				wakes := uint64(2) // the batch's, behind the closed gate, and Start's
				if mode == StartBatch {
					wakes = 1
				}
				assert.Equal(t, wakes, rec.Pool.WakeCalls, "%s: wake calls", mode)
				assert.Equal(t, uint64(65), rec.Pool.TotalJobsRun())
			case PerJob:
				assert.Equal(t, uint64(65), rec.Pool.EnqueueLockAcquisitions)
				assert.Equal(t, uint64(65), rec.Pool.EnqueueWakeCalls)
				assert.Equal(t, uint64(66), rec.Pool.WakeCalls)
				assert.Equal(t, uint64(65), rec.Pool.TotalJobsRun())
			case Serial:
				assert.Zero(t, rec.Pool.LockAcquisitions)
				assert.Zero(t, rec.Pool.TotalJobsRun())
			}
			assert.Equal(t, 65, rec.Jobs)
			assert.Equal(t, JobCount(s.cfg.Workers), rec.Jobs, "JobCount says what a collection makes")
			assert.Positive(t, rec.DirtyCards)
			assert.Positive(t, rec.PromotedObjects)
			assert.Equal(t, rec.Pause, rec.CardPrep+rec.Dispatch+rec.Join+rec.NurseryReset)
		}
	}
	require.NoError(t, s.Mutate())
	assert.ErrorIs(t, s.Mutate(), heap.ErrNurseryNotEmpty, "Mutate twice without a Collect")
}

// TestSteadyState runs 2,000 collections at a small heap: no collection
// fails with a full heap, untimed major collections keep the major heap's
// occupancy bounded, and the final heap verifies.
func TestSteadyState(t *testing.T) {
	cfg := tinyConfig(5, 16)
	cfg.Verify, cfg.LOS = false, 8<<20
	s := newSim(t, cfg)
	_, total := s.Heap().MajorUsage()
	maxUsed, majors := 0, 0
	for i := range 2000 {
		require.NoError(t, s.Mutate(), "mutator %d", i)
		rec, err := s.Collect(Modes()[i%len(Modes())])
		require.NoError(t, err, "collection %d", i)
		if rec.MajorGCBefore {
			majors++
		}
		used, _ := s.Heap().MajorUsage()
		maxUsed = max(maxUsed, used)
	}
	_, err := s.Heap().Verify(heap.VerifyOptions{AfterMinor: true, FullHeap: true})
	require.NoError(t, err)
	losUsed, losTotal := s.Heap().LOSUsage()
	t.Logf("major GCs %d, max major occupancy %d/%d blocks, LOS %d/%d pages", majors, maxUsed, total, losUsed, losTotal)
	assert.Equal(t, s.MajorGCs(), majors, "every major collection is flagged on the next record")
	assert.Positive(t, majors, "the run must exercise major collections")
	assert.Less(t, majors, 100, "major collections are occasional, not every round")
	assert.LessOrEqual(t, maxUsed, total-s.minFreeBlocks(), "occupancy stays bounded")
}

// TestFullHeapIsAnErrorNamingTheSetting: a heap that passes Validate but
// fills up at run time, as survivors that never die accumulate, fails with
// an error naming the setting to raise, once: the message does not repeat
// the package prefix, and later calls report ErrBroken.
func TestFullHeapIsAnErrorNamingTheSetting(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.Verify = false
	cfg.Mutator.BarrierStores, cfg.Mutator.Published, cfg.Mutator.Lifetime = 600, 600, 1000
	cfg.Mutator.NurseryLinks = 0.6
	require.NoError(t, cfg.Validate())
	s := newSim(t, cfg)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		if err = s.Mutate(); err == nil {
			_, err = s.Collect(Batch)
		}
	}
	require.ErrorIs(t, err, heap.ErrMajorHeapFull)
	assert.Contains(t, err.Error(), "major_heap")
	assert.Equal(t, 1, strings.Count(err.Error(), "gcsim:"), err.Error())
	_, err = s.Collect(Batch)
	assert.ErrorIs(t, err, ErrBroken, "a failed simulation stays failed")
	assert.ErrorIs(t, err, heap.ErrMajorHeapFull, "and says why")
	assert.Equal(t, 1, strings.Count(err.Error(), "gcsim:"), err.Error())
}

// pauseAllocs returns how many objects have been allocated so far with
// (*Sim).pause on the stack, from the heap profile (MemProfileRate must be 1).
// Unlike MemStats.Mallocs it does not count other goroutines, such as pool
// workers starting up or parking while a pause is measured.
func pauseAllocs(t *testing.T) int64 {
	runtime.GC() // publish the profile up to now
	runtime.GC()
	var recs []runtime.MemProfileRecord
	for {
		n, ok := runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+64)
	}
	var total int64
	for _, r := range recs {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if strings.HasSuffix(f.Function, "gcsim.(*Sim).pause") {
				total += r.AllocObjects
				break
			}
			if !more {
				break
			}
		}
	}
	return total
}

// TestPauseAllocatesNothing: the pause does no per-collection Go allocation.
// Serial mode (only gcsim's and heap's code) must allocate nothing at all;
// with a pool, the runtime may rarely allocate inside the pool's waits (a
// sync.Cond wait refilling its sudog cache), so the pool modes may have at
// most 4 allocations in 20 pauses: far from one per pause. (At most 2 was
// the bound until a CI run on 3 Dec 2026 counted 3 under -race, for the
// goroutines backend's startbatch.)
func TestPauseAllocatesNothing(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	for _, backend := range testBackends() {
		cfg := tinyConfig(6, 4)
		cfg.Verify, cfg.Workers, cfg.Backend = false, 4, backend
		cfg.KernelSnapshot = true // its reads allocate nothing either
		s := newSim(t, cfg)
		run(t, s, Modes(), 30) // warm up: gray stacks and queues at size
		for _, mode := range Modes() {
			before := pauseAllocs(t)
			for range 20 {
				require.NoError(t, s.Mutate())
				var ph phases
				pre := preemptions{on: backend == workerpool.Native && mode != Serial}
				require.NoError(t, s.pause(mode, &ph, &pre, make(chan struct{})))
				require.NoError(t, s.completions.drain(nil)) // frees the nodes for the next pause
			}
			allocs := pauseAllocs(t) - before
			if mode == Serial {
				assert.Zero(t, allocs, "%s/%s: Go allocations inside 20 pauses", backend, mode)
			} else {
				assert.Less(t, allocs, int64(5), "%s/%s: Go allocations inside 20 pauses", backend, mode)
			}
		}
	}
}

func TestCompareInterleavesModes(t *testing.T) {
	cfg := tinyConfig(7, 4)
	var calls []Mode
	res, err := Compare(context.Background(), cfg, CompareOptions{
		Modes: []Mode{Serial, Batch, PerJob}, GCs: 4, Warmup: 2,
		Progress: func(m Mode, done, total int) {
			calls = append(calls, m)
			assert.Equal(t, 4, total)
		},
	})
	require.NoError(t, err)
	require.Len(t, res.Modes, 3)
	for i, m := range []Mode{Serial, Batch, PerJob} {
		assert.Equal(t, m, res.Modes[i].Mode)
		require.Len(t, res.Modes[i].Records, 4)
		for _, r := range res.Modes[i].Records {
			assert.Equal(t, m, r.Mode)
			assert.Positive(t, r.Pause)
		}
	}
	// Rounds rotate through [S B P]: warm-up rounds 0 and 1 are S B P and
	// B P S; the recorded rounds 2..5 are P S B, S B P, B P S, P S B.
	assert.Equal(t, []Mode{PerJob, Serial, Batch, Serial, Batch, PerJob, Batch, PerJob, Serial, PerJob, Serial, Batch}, calls)
	assert.Positive(t, res.SimOverhead)
	assert.Greater(t, res.Elapsed, res.SimOverhead)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Compare(ctx, cfg, CompareOptions{GCs: 3})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = Compare(context.Background(), cfg, CompareOptions{GCs: 0})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	// Warmup + GCs wrapping negative used to run no rounds at all and
	// return empty samples without an error.
	_, err = Compare(context.Background(), cfg, CompareOptions{GCs: math.MaxInt, Warmup: 50})
	assert.ErrorIs(t, err, ErrInvalidConfig)
	bad := cfg
	bad.Workers = 0
	_, err = Compare(context.Background(), bad, CompareOptions{GCs: 1})
	assert.True(t, errors.Is(err, ErrInvalidConfig))
}

func TestHeapLargerThanTheMachineIsAnError(t *testing.T) {
	cfg := tinyConfig(1, 4)
	cfg.MajorHeap = 1 << 44
	require.NoError(t, cfg.Validate(), "valid in itself")
	_, err := New(cfg)
	require.ErrorIs(t, err, heap.ErrTooLarge)
	assert.Contains(t, err.Error(), "major_heap")
}

// TestHostGCOverlapCountsCyclesRunningAcrossTheWindow: a host cycle that
// started before a pause and ended after it overlapped the pause as much
// as one that ran inside it.
func TestHostGCOverlapCountsCyclesRunningAcrossTheWindow(t *testing.T) {
	rest, marking := hostGC{cycles: 5, stws: 10}, hostGC{cycles: 5, stws: 11}
	for _, tc := range []struct {
		name          string
		before, after hostGC
		want          uint64
	}{
		{"none", rest, rest, 0},
		{"one inside", rest, hostGC{6, 12}, 1},
		{"started inside, still marking", rest, marking, 1},
		{"marking across the whole window", marking, marking, 1},
		{"started before, ended inside", marking, hostGC{6, 12}, 1},
		{"ended inside, the next started", marking, hostGC{6, 13}, 2},
	} {
		assert.Equal(t, tc.want, tc.before.overlapped(tc.after), tc.name)
	}

	// runtime.GC returns with its cycle ended: two stop-the-world pauses a
	// cycle, none marking. A background cycle may start between the reads,
	// so a few tries; a rule that does not hold fails them all.
	s := newSim(t, tinyConfig(1, 4))
	var before, after hostGC
	for range 5 {
		before = s.hostGC()
		runtime.GC()
		after = s.hostGC()
		if !after.marking() && after.stws-before.stws == 2*(after.cycles-before.cycles) {
			break
		}
	}
	require.Greater(t, after.cycles, before.cycles)
	assert.False(t, after.marking(), "runtime.GC returns with its cycle ended")
	assert.Equal(t, 2*(after.cycles-before.cycles), after.stws-before.stws, "two stop-the-world pauses a cycle")
}

// panickingJob is a job with a bug.
type panickingJob struct{}

func (panickingJob) Run(int) { panic("job bug") }

// TestAJobPanicBreaksTheSimInEveryMode: a job that panics makes Collect
// return a *workerpool.PanicError, inline (Serial) as on the pool, and
// every later call ErrBroken.
func TestAJobPanicBreaksTheSimInEveryMode(t *testing.T) {
	for _, mode := range Modes() {
		t.Run(mode.String(), func(t *testing.T) {
			s := newSim(t, tinyConfig(1, 16))
			require.NoError(t, s.Mutate())
			s.completions.timed[0].Job = panickingJob{}
			_, err := s.Collect(mode)
			var pe *workerpool.PanicError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "job bug", pe.Value)
			_, err = s.Collect(mode)
			assert.ErrorIs(t, err, ErrBroken)
		})
	}
}
