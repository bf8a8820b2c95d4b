package gcsim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/trace"
)

// TestTraceRecordsCollectionsAndJobs: with Config.Trace set, every
// collection of every mode appears as a start/end pair and every job as a
// start/end pair (Serial's on the inline worker, the pool's on pool
// workers), and nothing is lost.
func TestTraceRecordsCollectionsAndJobs(t *testing.T) {
	for _, backend := range testBackends() {
		for _, modes := range [][]Mode{{Serial}, {PerJob}, {Batch}, Modes()} {
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
					case Batch:
						enqueues += gcs + warmup
					}
				}

				data := file.Bytes()
				r, err := trace.Open(bytes.NewReader(data))
				require.NoError(t, err)
				inline, pooled := uint64(0), uint64(0)
				starts := map[uint64]int{}
				for {
					ev, err := r.Next()
					if err == io.EOF {
						break
					}
					require.NoError(t, err)
					switch ev.Kind {
					case trace.KindJobStart:
						if int(int64(ev.Arg)) == jobs.Inline {
							inline++
						} else {
							assert.Less(t, ev.Arg, uint64(cfg.Workers))
							pooled++
						}
					case trace.KindCollectionStart:
						starts[ev.Arg]++
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
				assert.Equal(t, serial, inline, "Serial's jobs are traced on the inline worker")
				assert.Equal(t, collections*jobsPer-serial, pooled, "the pool's jobs are traced on its workers")

				r2, err := trace.Open(bytes.NewReader(data))
				require.NoError(t, err)
				sum, err := trace.Summarize(r2)
				require.NoError(t, err)
				assert.Equal(t, collections, sum.ByKind[trace.KindCollectionEnd])
				assert.Equal(t, collections*jobsPer, sum.ByKind[trace.KindJobStart])
				assert.Equal(t, collections*jobsPer, sum.ByKind[trace.KindJobEnd])
				assert.Equal(t, enqueues, sum.ByKind[trace.KindEnqueue])
			})
		}
	}
}
