package jobs

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/gcbench/gcbench/jobs/mpsc"
)

// drainBound is how long a test waits for records that a lost push would
// never deliver.
const drainBound = time.Minute

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestCompletionDuration(t *testing.T) {
	start := time.Unix(100, 0)
	c := Completion{JobIndex: 3, Worker: 1, Start: start, End: start.Add(1500 * time.Microsecond)}
	assert.Equal(t, 1500*time.Microsecond, c.Duration())
}

func TestTimedPushesOneRecordPerRun(t *testing.T) {
	forEachKindOf[Completion](t, func(t *testing.T, l mpsc.Queue[Completion]) {
		const n = 50
		timed := make([]Timed, n)
		ran := make([]atomic.Int32, n)
		for i := range timed {
			timed[i] = Timed{Job: Func(func(int) { ran[i].Add(1) }), JobIndex: i, Done: l}
		}
		for round := range 3 { // the same records, round after round
			var wg sync.WaitGroup
			for i := range timed {
				wg.Go(func() { timed[i].Run(i % 4) })
			}
			testwait.Do(t, drainBound, "the runs of round "+fmt.Sprint(round), wg.Wait)
			seen := make([]bool, n)
			ctx, cancel := context.WithTimeout(context.Background(), drainBound)
			defer cancel()
			got, err := l.Drain(ctx, n, func(nd *mpsc.Node[Completion]) {
				c := nd.Value
				require.False(t, seen[c.JobIndex], "round %d: job %d reported twice", round, c.JobIndex)
				seen[c.JobIndex] = true
				assert.Equal(t, c.JobIndex%4, c.Worker)
				assert.False(t, c.End.Before(c.Start))
			})
			require.NoError(t, err)
			require.Equal(t, n, got)
			_, st := l.TryPop()
			require.Equal(t, mpsc.Empty, st, "exactly one record per run")
		}
		for i := range ran {
			assert.Equal(t, int32(3), ran[i].Load())
		}
	})
}

func TestTimedReportsAPanickingJob(t *testing.T) {
	var l mpsc.List[Completion]
	timed := &Timed{Job: Func(func(int) { panic("boom") }), JobIndex: 7, Done: &l}
	assert.PanicsWithValue(t, "boom", func() { timed.Run(Inline) })
	ctx, cancel := context.WithTimeout(context.Background(), drainBound)
	defer cancel()
	got, err := l.Drain(ctx, 1, func(n *mpsc.Node[Completion]) {
		assert.Equal(t, 7, n.Value.JobIndex)
		assert.Equal(t, Inline, n.Value.Worker)
	})
	require.NoError(t, err)
	assert.Equal(t, 1, got)
}

func forEachKindOf[T any](t *testing.T, test func(t *testing.T, l mpsc.Queue[T])) {
	t.Run("mpsc", func(t *testing.T) { test(t, new(mpsc.List[T])) })
	t.Run("mutex", func(t *testing.T) { test(t, new(mpsc.MutexList[T])) })
}
