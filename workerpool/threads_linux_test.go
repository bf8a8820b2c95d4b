//go:build linux

package workerpool

import (
	"os"
	"strconv"
	"testing"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func threadIDs(t *testing.T) map[int]bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	ids := make(map[int]bool, len(ents))
	for _, e := range ents {
		id, err := strconv.Atoi(e.Name())
		require.NoError(t, err)
		ids[id] = true
	}
	return ids
}

// Each Threads worker owns a distinct OS thread, never the main thread, and
// every one of them is gone when Close returns. The process may gain a few
// threads meanwhile (the Go runtime starts Ms to run Ps while workers sleep
// in futex calls, and keeps them), so the check names the workers' threads
// rather than trusting a count alone.
func TestThreadsWorkersOwnThreadsThatEndWithClose(t *testing.T) {
	for _, w := range allPolicies {
		t.Run(w.String(), func(t *testing.T) {
			before := threadIDs(t) // a worker may take over an idle runtime thread that existed before
			p, err := New(Options{Workers: 6, Backend: Threads, Wake: w, Gated: true})
			require.NoError(t, err)
			during := threadIDs(t)
			seen := map[int]bool{}
			for i := range p.workers {
				tid := p.workers[i].tid
				require.NotZero(t, tid)
				assert.NotEqual(t, unix.Getpid(), tid, "a worker must not hold the main thread")
				assert.False(t, seen[tid], "two workers share thread %d", tid)
				seen[tid] = true
				assert.True(t, during[tid], "worker thread %d not in /proc/self/task", tid)
			}
			var j countJob
			batch := []jobs.Job{&j, &j, &j, &j, &j, &j, &j, &j}
			require.NoError(t, p.EnqueueBatch(batch))
			require.NoError(t, p.Close())
			assert.EqualValues(t, 8, j.runs.Load())
			after := threadIDs(t)
			for tid := range seen {
				assert.False(t, after[tid], "worker thread %d still running after Close", tid)
			}
			assert.LessOrEqual(t, len(after), len(during)-len(seen)+4,
				"thread count after Close: before %d, during %d, after %d", len(before), len(during), len(after))
		})
	}
}

// A job that calls runtime.Goexit takes its locked thread with it; the
// replacement worker gets a new thread, and Close still ends all of them.
func TestThreadsGoexitReplacesThread(t *testing.T) {
	p, err := New(Options{Workers: 1, Backend: Threads})
	require.NoError(t, err)
	old := p.workers[0].tid
	require.NoError(t, p.Enqueue(jobs.Func(func(int) { runtimeGoexit() })))
	assert.ErrorIs(t, p.Join(timeoutCtx(t)), errGoexit)
	require.NoError(t, p.Close())
	ids := threadIDs(t)
	assert.False(t, ids[old])
	assert.False(t, ids[p.workers[0].tid])
}
