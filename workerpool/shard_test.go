package workerpool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/jobs"
)

// pushTo queues n jobs that record their index into order on shard s of a
// pool built without workers.
func pushTo(p *Pool, s, n int, order *[]int, first int) {
	sh := &p.shards[s]
	sh.lock(&sh.c)
	for i := range n {
		id := first + i
		sh.q.push(jobs.Func(func(int) { *order = append(*order, id) }))
	}
	sh.pushed.Add(uint64(n))
	sh.unlock(&sh.c)
}

// A worker takes from its own shard first, steals only when it is empty,
// takes grabSize jobs from the front of the victim, and publishes the grab
// with the victim's index and sequence number, which Join reads.
func TestShardedGrabPrefersOwnShardThenSteals(t *testing.T) {
	p := build(Options{Workers: 2, Queue: Sharded}, goKit{}, ingressCells)
	var order []int
	pushTo(p, 0, 3, &order, 0)
	pushTo(p, 1, 40, &order, 100)
	w := &p.workers[0]

	require.True(t, p.grabSharded(w))
	assert.Len(t, w.held, 1, "grabSize(3, 2)")
	assert.Equal(t, uint64(0)<<shardShift|1, w.state.Load())
	var buf [stackShards]uint64
	tgt := p.targetNow(&buf)
	assert.False(t, p.doneUpTo(&tgt))
	p.runGrab(w)
	p.publishGrab(w)
	p.retireSharded(w)
	require.True(t, p.grabSharded(w))
	p.runGrab(w)
	p.publishGrab(w)
	p.retireSharded(w)
	require.True(t, p.grabSharded(w))
	p.runGrab(w)
	p.publishGrab(w)
	p.retireSharded(w)
	assert.Equal(t, []int{0, 1, 2}, order, "own shard first, in FIFO order")
	assert.Zero(t, w.c.steals.Load())

	require.True(t, p.grabSharded(w), "own shard empty: steal")
	assert.Len(t, w.held, grabSize(40, 2))
	assert.Equal(t, uint64(1)<<shardShift|1, w.state.Load(), "running names shard 1, sequence 0")
	p.runGrab(w)
	p.publishGrab(w)
	p.retireSharded(w)
	assert.Equal(t, []int{0, 1, 2, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109}, order)
	assert.EqualValues(t, 1, w.c.steals.Load())
	assert.EqualValues(t, 4, w.c.grabs.Load())

	for p.grabSharded(w) {
		p.runGrab(w)
		p.publishGrab(w)
		p.retireSharded(w)
	}
	assert.Len(t, order, 43)
	assert.True(t, p.doneUpTo(&tgt))
	assert.Zero(t, p.queuedSharded())
}

// A gated sharded pool's workers take nothing while the gate is closed,
// even from their own shard.
func TestShardedGrabHonoursTheGate(t *testing.T) {
	p := build(Options{Workers: 2, Queue: Sharded, Gated: true}, goKit{}, ingressCells)
	var order []int
	pushTo(p, 0, 3, &order, 0)
	assert.False(t, p.grabSharded(&p.workers[0]))
	assert.Equal(t, 3, p.queuedSharded())
}

// Join's target is one sequence number per shard; past stackShards shards
// it lives on the heap, and Join still waits for every job.
func TestShardedJoinWithManyShards(t *testing.T) {
	p := newPool(t, Options{Workers: stackShards + 6, Queue: Sharded, Wake: Targeted})
	var j countJob
	for round := 1; round <= 3; round++ {
		for range 500 {
			require.NoError(t, p.Enqueue(&j))
		}
		require.NoError(t, p.Join(timeoutCtx(t)))
		assert.EqualValues(t, 500*round, j.runs.Load())
	}
	require.NoError(t, p.Close())
	assert.EqualValues(t, 1500, p.Stats().TotalJobsRun())
}
