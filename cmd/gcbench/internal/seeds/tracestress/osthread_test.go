package tracestress

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/trace"
)

// TestStressActorsOwnThreads checks that the writers and the reader ran on
// distinct OS threads, that the reader's thread CPU time was measured, that
// flushes asked are the counted time over the flush interval, and that
// the counted figures lie within the run's.
func TestStressActorsOwnThreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread ids and CPU time come from gettid and CLOCK_THREAD_CPUTIME_ID")
	}
	res, err := Compare(context.Background(), Options{
		Writers: 5, PayloadSize: 64, Limit: trace.MinLimit * 4, Duration: 40 * time.Millisecond,
		Iterations: 1, FlushInterval: 5 * time.Millisecond, Dir: t.TempDir(),
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, 2)
	for _, run := range res.Runs {
		c := run.Counted
		assert.Equal(t, 6, run.Threads, "%v: 5 writers and the reader", run.Policy)
		assert.Equal(t, float64(c.Duration)/float64(5*time.Millisecond), run.FlushesAsked, "%v", run.Policy)
		assert.Positive(t, c.Duration, "%v", run.Policy)
		assert.LessOrEqual(t, c.Start+c.Duration, run.Duration, "%v: counted from the first drop to the stop, within the run", run.Policy)
		// A loaded machine may leave the reader no CPU in so short a count
		// (TestThreadCPUOf checks the clock itself).
		share := c.ReaderCPUShare()
		assert.True(t, share >= 0 && share <= 101, "%v: reader CPU share %.1f%%", run.Policy, share)
		// The flushes begun in the counted time cannot be more than the
		// reader's pause allows (and one in flight at each end), nor more
		// than the session's, which add its first flush and Close's drain.
		assert.LessOrEqual(t, float64(c.Flushes), run.FlushesAsked+2, "%v", run.Policy)
		assert.LessOrEqual(t, c.Flushes+2, run.Session.Flushes, "%v", run.Policy)
		assert.LessOrEqual(t, c.EventsRead, run.EventsRead, "%v", run.Policy)
		assert.LessOrEqual(t, c.EventsDropped, run.EventsDropped, "%v", run.Policy)
	}
}
