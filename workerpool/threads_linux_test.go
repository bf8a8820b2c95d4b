//go:build linux

package workerpool

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/gcbench/gcbench/workerpool/internal/futex"
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
				tid := int(p.workers[i].tid.Load())
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
	old := int(p.workers[0].tid.Load())
	require.NoError(t, p.Enqueue(jobs.Func(func(int) { runtimeGoexit() })))
	assert.ErrorIs(t, p.Join(timeoutCtx(t)), ErrJobGoexit)
	require.NoError(t, p.Close())
	ids := threadIDs(t)
	assert.False(t, ids[old])
	assert.False(t, ids[int(p.workers[0].tid.Load())])
}

// ThreadIDs names every worker's live thread, and after a job ends its
// worker's thread with Goexit, whichever worker took it, names that
// worker's replacement instead; it names none for the other backends or
// after Close.
func TestThreadIDs(t *testing.T) {
	p, err := New(Options{Workers: 3, Backend: Threads})
	require.NoError(t, err)
	ids := p.ThreadIDs()
	require.Len(t, ids, 3)
	live := threadIDs(t)
	for _, id := range ids {
		assert.True(t, live[id], "thread %d is not in /proc/self/task", id)
	}
	require.NoError(t, p.EnqueueFunc(func(int) { runtimeGoexit() }))
	assert.ErrorIs(t, p.Join(timeoutCtx(t)), ErrJobGoexit)
	replaced := func() bool { // the replacement publishes its id once it runs
		after := p.ThreadIDs()
		changed := 0
		for i := range after {
			if after[i] != ids[i] {
				changed++
				if after[i] == 0 || !futex.ThreadAlive(after[i]) {
					return false
				}
			}
		}
		return changed == 1
	}
	if !assert.Eventually(t, replaced, 10*time.Second, time.Millisecond, "one worker's thread replaced by a live one") {
		t.Logf("thread ids before the Goexit %v, now %v", ids, p.ThreadIDs())
	}
	require.NoError(t, p.Close())
	assert.Nil(t, p.ThreadIDs())

	g, err := New(Options{Workers: 2})
	require.NoError(t, err)
	assert.Nil(t, g.ThreadIDs())
	require.NoError(t, g.Close())
}
