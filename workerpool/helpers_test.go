package workerpool

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/require"
)

// allBackends, allPolicies and allQueues enumerate every combination the
// tests cover; Threads is skipped where the system lacks it (New says so
// explicitly).
var (
	allBackends = []Backend{Goroutines, Threads}
	allPolicies = []WakePolicy{Broadcast, Signal, Targeted, Spin}
	allQueues   = []QueueLayout{Shared, Sharded}
)

// config is one combination of backend, wake policy and queue layout.
type config struct {
	b Backend
	w WakePolicy
	q QueueLayout
}

func forEachConfig(t *testing.T, f func(t *testing.T, c config)) {
	for _, b := range allBackends {
		for _, w := range allPolicies {
			for _, q := range allQueues {
				c := config{b, w, q}
				t.Run(fmt.Sprintf("%v/%v/%v", b, w, q), func(t *testing.T) { f(t, c) })
			}
		}
	}
}

// newPool makes a pool for o, closed when the test ends.
func newPool(t testing.TB, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// countJob counts its runs.
type countJob struct{ runs atomic.Int64 }

func (j *countJob) Run(int) { j.runs.Add(1) }

// timeoutCtx bounds a wait in a test so that a bug fails the test instead of
// hanging CI.
func timeoutCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitParked waits until all workers of p have gone to sleep at least once
// and the pool is quiet, so that counter deltas measured afterwards do not
// include start-up noise.
func waitParked(t testing.TB, p *Pool) {
	t.Helper()
	require.Eventually(t, func() bool {
		p.lock(&p.coord)
		defer p.unlock(&p.coord)
		switch p.opts.Wake {
		case Targeted:
			return len(p.idle) == len(p.workers)
		case Spin:
			s := unpack(p.sema.state.Load())
			return int(s.waiters) == len(p.workers)
		default:
			return p.parked == len(p.workers)
		}
	}, 10*time.Second, time.Millisecond)
}

var _ jobs.Job = (*countJob)(nil)
