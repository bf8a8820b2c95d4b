package workerpool

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJoinLeavesTheGateClosedForJobsOnlyRunning: after a Join whose
// context ended closed the gate while a job still ran, a new Join waits
// for that job without opening the gate: nothing of its own is queued, so
// waking the parked workers would be for nothing.
func TestJoinLeavesTheGateClosedForJobsOnlyRunning(t *testing.T) {
	p := newPool(t, Options{Workers: 3, Wake: Broadcast, Gated: true})
	started, release := make(chan struct{}), make(chan struct{})
	require.NoError(t, p.EnqueueFunc(func(int) { close(started); <-release }))
	p.Start()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, p.Join(ctx), context.Canceled)
	require.False(t, p.gateOpen.Load(), "the failed Join closed the gate")
	require.Eventually(t, func() bool {
		p.lock(&p.coord)
		defer p.unlock(&p.coord)
		return p.parked == 2
	}, 5*time.Second, time.Millisecond)
	before := p.Stats()
	joined := make(chan error)
	go func() { joined <- p.Join(timeoutCtx(t)) }()
	time.Sleep(5 * time.Millisecond) // the Join is waiting for the running job
	d := p.Stats().Sub(before)
	assert.False(t, p.gateOpen.Load(), "the gate stays closed")
	assert.Zero(t, d.WakeCalls+d.WorkersWoken+d.FutileWakeups, "nobody woken for nothing")
	close(release)
	require.NoError(t, <-joined)
}
