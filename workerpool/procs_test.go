package workerpool

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkersNoticeAGOMAXPROCSChange: a Spin pool on threads made under
// one GOMAXPROCS and run under another counts its workers' sleeps in the
// handoff regime of the value in force, and lets nobody spin at 1, on
// either queue layout. The test polls rather than Joins, so that only
// the workers' own waits can notice the change (a sharded pool's did not).
func TestWorkersNoticeAGOMAXPROCSChange(t *testing.T) {
	run := func(t *testing.T, q QueueLayout, made, used int) (Stats, *Pool) {
		var d Stats
		var p *Pool
		withProcs(t, made, func() {
			p = newPool(t, Options{Workers: 2, Backend: Threads, Wake: Spin, Queue: q})
			waitParked(t, p)
			withProcs(t, used, func() {
				before := p.Stats()
				var j countJob
				for i := 1; i <= 50; i++ {
					require.NoError(t, p.Enqueue(&j))
					require.Eventually(t, func() bool { return j.runs.Load() == int64(i) }, 5*time.Second, 10*time.Microsecond)
					waitParked(t, p)
				}
				d = p.Stats().Sub(before)
			})
		})
		return d, p
	}
	for _, q := range allQueues {
		t.Run(q.String(), func(t *testing.T) {
			down, p := run(t, q, 4, 1)
			assert.Positive(t, down.HandoffSleeps, "GOMAXPROCS 1 < workers+1: the sleeps are in the handoff regime")
			assert.LessOrEqual(t, p.spin.free.Load(), int32(0), "with GOMAXPROCS 1 nobody may spin")
			up, _ := run(t, q, 1, 4)
			assert.LessOrEqual(t, up.HandoffSleeps, uint64(2), "only the two waits begun under GOMAXPROCS 1")
		})
	}
}
