package gcsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/trace"
	"github.com/gcbench/gcbench/workerpool"
)

// TestTraceRecordsCollectionsAndJobs: with Config.Trace set, every
// collection of every mode appears as a start/end pair and every job as a
// start/end pair (Serial's on the inline worker, the pool's on pool
// workers), and nothing is lost.
func TestTraceRecordsCollectionsAndJobs(t *testing.T) {
	for _, backend := range testBackends() {
		for _, modes := range [][]Mode{{Serial}, {PerJob}, {Batch}, {StartBatch}, Modes()} {
			t.Run(fmt.Sprintf("%s/%v", backend, modes), func(t *testing.T) {
				var file bytes.Buffer
				sess, err := trace.NewSession(&file, trace.Options{})
				require.NoError(t, err)
				cfg := tinyConfig(5, 4)
				cfg.Verify, cfg.Backend, cfg.Trace = false, backend, sess
				const gcs, warmup = 3, 1
				res, err := Compare(context.Background(), cfg, CompareOptions{Modes: modes, GCs: gcs, Warmup: warmup})
				require.NoError(t, sess.Close())
				require.NoError(t, err)
				collections := uint64((gcs + warmup) * len(modes))
				jobsPer := uint64(res.Modes[0].Records[0].Jobs)
				var enqueues uint64 // Enqueue events: one per job (perjob), one per batch
				for _, m := range modes {
					switch m {
					case PerJob:
						enqueues += (gcs + warmup) * jobsPer
					case Batch, StartBatch:
						enqueues += gcs + warmup
					}
				}

				data := file.Bytes()
				r, err := trace.Open(bytes.NewReader(data))
				require.NoError(t, err)
				inline, pooled := uint64(0), uint64(0)
				starts := map[uint64]int{}
				byMode := map[string]uint64{}
				unrecorded, kernel := 0, 0
				for {
					ev, err := r.Next()
					if err == io.EOF {
						break
					}
					require.NoError(t, err)
					switch ev.Kind {
					case TraceJobStart:
						if int(int64(ev.Arg)) == jobs.Inline {
							inline++
						} else {
							assert.Less(t, ev.Arg, uint64(cfg.Workers))
							pooled++
						}
					case TraceCollectionStart:
						starts[ev.Arg]++
						byMode[string(ev.Payload)]++
					case TraceWakesUnrecorded:
						unrecorded++
					case TraceKernelCounter:
						kernel++
					}
				}
				read, lost := r.Totals()
				assert.Zero(t, lost)
				assert.Positive(t, read)
				assert.Len(t, starts, int(collections), "one start per collection, numbered 1..n")
				for n := uint64(1); n <= collections; n++ {
					assert.Equal(t, 1, starts[n], "collection %d", n)
				}
				var serial uint64
				for _, m := range modes {
					if m == Serial {
						serial = (gcs + warmup) * jobsPer
					}
				}
				for _, m := range modes {
					assert.Equal(t, uint64(gcs+warmup), byMode[m.String()], "each collection's start names its mode")
				}
				wantUnrecorded := 0
				if backend == workerpool.Native {
					wantUnrecorded = 1
				}
				assert.Equal(t, wantUnrecorded, unrecorded, "the trace says when the backend does not report wakes")
				wantKernel := 0
				if backend == workerpool.Native {
					for _, m := range modes {
						if m != Serial { // collector_preemptions, the two wake-up counts, the workers' two switch counts and two times, the collector's and the others' CPU; no snapshot
							wantKernel += 9 * (gcs + warmup)
						}
					}
				}
				assert.Equal(t, wantKernel, kernel, "each counted kernel counter of each collection")
				assert.Equal(t, serial, inline, "Serial's jobs are traced on the inline worker")
				assert.Equal(t, collections*jobsPer-serial, pooled, "the pool's jobs are traced on its workers")

				r2, err := trace.Open(bytes.NewReader(data))
				require.NoError(t, err)
				sum, err := trace.Summarize(r2)
				require.NoError(t, err)
				assert.Equal(t, collections, sum.ByKind[TraceCollectionEnd])
				assert.Equal(t, collections*jobsPer, sum.ByKind[TraceJobStart])
				assert.Equal(t, collections*jobsPer, sum.ByKind[TraceJobEnd])
				assert.Equal(t, enqueues, sum.ByKind[TraceEnqueue])
			})
		}
	}
}

// observedSession records two collections of a 3-worker pool through a
// TraceObserver, with one inline job per collection, plus one ad-hoc event
// on a writer of its own, and returns the trace.
func observedSession(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	s, err := trace.NewSession(&buf, trace.Options{FlushInterval: time.Millisecond})
	require.NoError(t, err)
	o, err := NewTraceObserver(s, 3)
	require.NoError(t, err)
	o.WakesUnrecorded()
	for gc, mode := range map[uint64]Mode{1: PerJob, 2: Batch} {
		o.CollectionStart(gc, mode)
		o.Enqueued(7)
		o.JobStart(jobs.Inline)
		o.JobEnd(jobs.Inline)
		for w := range 3 {
			o.Woken(w)
			for range 2 {
				o.JobStart(w)
				o.JobEnd(w)
			}
		}
		o.FutileWake(2)
		o.CollectionEnd(gc, mode)
		var rec Record // perjob's counts no kernel counter
		if mode == Batch {
			rec.CollectorPreemptions, rec.CollectorPreemptionsCounted = 3, true
			rec.Pool.Kernel = workerpool.KernelStats{WakeCPUsCounted: true, WakeupsOnWakerCPU: 2, WakeupsElsewhere: 4}
		}
		o.KernelCounters(&rec)
	}
	uw, err := s.NewWriter()
	require.NoError(t, err)
	uw.Write(trace.KindUser+3, 42, []byte("hello \"perfetto\"\n"))
	require.NoError(t, s.Close())
	return buf.Bytes()
}

// readEvents reads every event of a trace.
func readEvents(t *testing.T, data []byte) []trace.Event {
	t.Helper()
	r, err := trace.Open(bytes.NewReader(data))
	require.NoError(t, err)
	var evs []trace.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		ev.Payload = bytes.Clone(ev.Payload)
		evs = append(evs, ev)
	}
	_, lost := r.Totals()
	require.Zero(t, lost)
	return evs
}

// TestTraceObserverEvents: the observer writes what the pool and the
// collector report, each worker's events on that worker's writer.
func TestTraceObserverEvents(t *testing.T) {
	kinds := map[string]int{}
	for _, ev := range readEvents(t, observedSession(t)) {
		kinds[TraceKindName(ev.Kind)]++
		if (ev.Kind == TraceJobStart || ev.Kind == TraceWake) && int64(ev.Arg) >= 0 {
			assert.Equal(t, uint32(ev.Arg), ev.Writer, "worker %d's %v event", ev.Arg, TraceKindName(ev.Kind))
		}
	}
	assert.Equal(t, map[string]int{"collection-start": 2, "collection-end": 2, "enqueue": 2, "job-start": 14, "job-end": 14,
		"wake": 6, "futile-wake": 2, "wakes-unrecorded": 1, "kernel-counter": 3, "user+3": 1}, kinds)
	_, err := NewTraceObserver(nil, -1)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// TestTraceKindNames: every kind has a name; gcsim's are its own, the
// others trace's.
func TestTraceKindNames(t *testing.T) {
	for k, want := range map[trace.Kind]string{TraceCollectionStart: "collection-start", TraceCollectionEnd: "collection-end",
		TraceJobStart: "job-start", TraceJobEnd: "job-end", TraceEnqueue: "enqueue", TraceWake: "wake", TraceFutileWake: "futile-wake",
		TraceWakesUnrecorded: "wakes-unrecorded", TraceKernelCounter: "kernel-counter", trace.KindStress: "stress",
		trace.KindUser + 3: "user+3", 0: "kind(0)", 11: "kind(11)",
		999: "kind(999)"} {
		assert.Equal(t, want, TraceKindName(k), "kind %d", uint16(k))
	}
}

// TestChromeTracksGolden: a trace written by an earlier gcbench (its file
// format and kind numbers) still reads, and exports to exactly the JSON
// that gcbench produced for it then.
func TestChromeTracksGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/observed.gctrace")
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/observed.perfetto.json")
	require.NoError(t, err)
	r, err := trace.Open(bytes.NewReader(data))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, trace.ExportChrome(&out, r, ChromeTracks{}))
	assert.Equal(t, string(want), out.String())
}

// TestChromeTracksLayout: collections and jobs are slices, the rest
// instants; the collector, each worker and each other writer has its
// track, and every track is named.
func TestChromeTracksLayout(t *testing.T) {
	r, err := trace.Open(bytes.NewReader(observedSession(t)))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, trace.ExportChrome(&out, r, ChromeTracks{}))
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			PID      int
			TID      int64
			Args     map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	counts := map[string]int{}
	names := map[string]bool{}
	for _, ev := range doc.TraceEvents {
		if ev.Ph == "M" {
			names[fmt.Sprintf("%d/%d %s", ev.PID, ev.TID, ev.Args["name"])] = true
			continue
		}
		counts[ev.Ph+" "+ev.Name]++
		if strings.HasPrefix(ev.Name, "collection") {
			assert.NotNil(t, ev.Args["gc"], "a collection carries its number")
		}
		if ev.Name == "wakeups_elsewhere" {
			assert.Equal(t, 4.0, ev.Args["value"], "a kernel counter carries its value")
		}
	}
	assert.Equal(t, map[string]int{"B collection perjob": 1, "E collection perjob": 1, "B collection batch": 1, "E collection batch": 1,
		"i enqueue": 2, "B job": 14, "E job": 14, "i wake": 6, "i futile-wake": 2, "i " + wakesUnrecordedName: 1, "i user+3": 1,
		"i collector_preemptions": 1, "i wakeups_on_collector_cpu": 1, "i wakeups_elsewhere": 1}, counts)
	assert.Equal(t, map[string]bool{"1/0 pool": true, "1/0 collector": true, "1/1 worker 0": true, "1/2 worker 1": true,
		"1/3 worker 2": true, "2/0 writers": true, "2/4 writer 4": true}, names)
}

// TestChromeTracksAllocateNothing: the mapping places and names every kind
// without allocating, so the export stays free of per-event allocation.
func TestChromeTracksAllocateNothing(t *testing.T) {
	var m trace.ChromeMapping = ChromeTracks{}
	b := make([]byte, 0, 64)
	long := bytes.Repeat([]byte("m"), 1000) // a crafted mode name: cut at maxModeName
	for _, k := range []trace.Kind{TraceCollectionStart, TraceCollectionEnd, TraceJobStart, TraceJobEnd, TraceEnqueue,
		TraceWake, TraceFutileWake, TraceWakesUnrecorded, TraceKernelCounter, trace.KindStress, trace.KindUser + 7, 999} {
		for _, arg := range []uint64{0, 5, math.MaxUint64, math.MaxInt64} {
			ev := trace.Event{Kind: k, Arg: arg, Payload: long}
			allocs := testing.AllocsPerRun(100, func() {
				_ = m.Place(ev)
				b = m.AppendName(b[:0], ev)
			})
			assert.Zero(t, allocs, "kind %s, arg %d", TraceKindName(k), arg)
		}
	}
}

// TestChromeTracksWorkerTracks: a worker index has its own track; inline
// jobs and indices without a track id go on the collector's.
func TestChromeTracksWorkerTracks(t *testing.T) {
	for arg, tid := range map[uint64]int64{0: 1, 6: 7, math.MaxUint64: 0, math.MaxInt64: 0, 1 << 63: 0, math.MaxInt64 - 1: math.MaxInt64} {
		p := ChromeTracks{}.Place(trace.Event{Kind: TraceJobStart, Arg: arg})
		assert.Equal(t, trace.ChromeTrack{PID: chromePoolPID, TID: tid}, p.Track, "worker %d", int64(arg))
	}
}

// FuzzChromeTracksExport writes the events a fuzz input spells (kind,
// argument, payload length, and the writer, each from a few bytes) through
// a real session and exports the trace with ChromeTracks, gcbench trace
// --perfetto's mapping: it must give one valid JSON document, or an error
// wrapping a sentinel (too many tracks), never a panic.
func FuzzChromeTracksExport(f *testing.F) {
	f.Add([]byte{2, 0, 4, 1, 5, 1, 6, 65, 3, 0})                  // a collection, a job, an enqueue
	f.Add([]byte{4, 255, 5, 255, 7, 3, 8, 3, 99, 7})              // jobs on the inline worker, wakes, an unknown kind
	f.Add([]byte{3, 0, 5, 2, 2, 9, 2, 9, 4, 0, 4, 0, 6, 0, 1, 1}) // ends before begins, nested begins
	f.Fuzz(func(t *testing.T, data []byte) {
		var file bytes.Buffer
		s, err := trace.NewSession(&file, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ws := make([]*trace.Writer, 3)
		for i := range ws {
			if ws[i], err = s.NewWriter(); err != nil {
				t.Fatal(err)
			}
		}
		payload := make([]byte, 64)
		for i := 0; i+1 < len(data); i += 2 {
			kind, b := trace.Kind(data[i]%12), data[i+1]
			arg := uint64(b)
			switch {
			case b == 255:
				arg = math.MaxUint64 // jobs.Inline
			case b == 254:
				arg = math.MaxInt64
			case b >= 200:
				arg = uint64(b) << 40
			}
			ws[int(b)%len(ws)].Write(kind, arg, payload[:b%64])
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := trace.Open(bytes.NewReader(file.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := trace.ExportChrome(&out, r, ChromeTracks{}); err != nil {
			if !errors.Is(err, trace.ErrTooManyTracks) {
				t.Fatalf("export: %v", err)
			}
			return
		}
		if !json.Valid(out.Bytes()) {
			t.Fatalf("export is not JSON:\n%s", out.Bytes())
		}
	})
}
