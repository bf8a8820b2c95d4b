package workerpool

import (
	"context"
	"testing"
	"time"

	"github.com/gcbench/gcbench/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reserve claims the next position of g as a producer's CAS does and
// returns a func that publishes j there: a producer stopped between the
// two.
func reserve(g *ingress, j jobs.Job) (publish func()) {
	pos := g.tail.Add(1) - 1
	return func() {
		c := &g.cells[pos&uint64(len(g.cells)-1)]
		c.job = j
		c.seq.Store(pos + 1)
	}
}

func TestIngressFullThenClosed(t *testing.T) {
	g := newIngress(2)
	var a, b, c countJob
	require.Equal(t, pushOK, g.tryPush(&a))
	require.Equal(t, pushOK, g.tryPush(&b))
	assert.Equal(t, pushFull, g.tryPush(&c), "two cells hold two jobs")
	dst := make([]jobs.Job, 1)
	require.Equal(t, 1, g.takeInto(dst))
	assert.Same(t, &a, dst[0], "oldest first")
	require.Equal(t, pushOK, g.tryPush(&c), "a taken job frees its cell")
	g.close()
	assert.Equal(t, pushClosed, g.tryPush(&a))
	assert.EqualValues(t, 3, g.reserved(), "the closed bit is not a position")
	var r fifo
	require.Equal(t, 2, g.moveTo(&r))
	assert.True(t, g.drained())
	assert.Same(t, &b, r.pop())
	assert.Same(t, &c, r.pop())
}

func TestIngressStopsAtAPositionBeingWritten(t *testing.T) {
	g := newIngress(8)
	var a, b countJob
	publish := reserve(g, &a)
	require.Equal(t, pushOK, g.tryPush(&b))
	dst := make([]jobs.Job, 4)
	assert.Zero(t, g.takeInto(dst), "b waits behind a")
	assert.False(t, g.ready())
	assert.False(t, g.drained())
	assert.Equal(t, 2, g.queued(), "a position being written is queued")
	publish()
	assert.True(t, g.ready())
	require.Equal(t, 2, g.takeInto(dst))
	assert.Same(t, &a, dst[0])
	assert.Same(t, &b, dst[1])
	assert.Nil(t, g.cells[0].job, "a taken cell keeps no job alive")
	assert.True(t, g.drained())
}

// busyPool returns an ungated Targeted pool whose workers are all inside a
// job that returns when release is closed.
func busyPool(t *testing.T, b Backend, workers, cells int) (p *Pool, release chan struct{}) {
	p, err := start(Options{Workers: workers, Backend: b, Wake: Targeted}, cells)
	if b == Threads && err != nil {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	release = make(chan struct{})
	started := make(chan struct{})
	for range workers {
		require.NoError(t, p.EnqueueFunc(func(int) { started <- struct{}{}; <-release }))
	}
	for range workers {
		<-started
	}
	return p, release
}

func TestLockFreeEnqueueTakesNoLockWhileWorkersAreBusy(t *testing.T) {
	for _, b := range allBackends {
		t.Run(b.String(), func(t *testing.T) {
			p, release := busyPool(t, b, 2, ingressCells)
			var j countJob
			before := p.Stats()
			for range 100 {
				require.NoError(t, p.Enqueue(&j))
			}
			d := p.Stats().Sub(before)
			assert.Zero(t, d.EnqueueLockAcquisitions)
			assert.Zero(t, d.EnqueueWakeCalls)
			close(release)
			require.NoError(t, p.Join(timeoutCtx(t)))
			assert.EqualValues(t, 100, j.runs.Load())
		})
	}
}

// One worker runs jobs in acceptance order, whether they went through a
// four-cell ingress that keeps filling up, or EnqueueBatch between them.
func TestFullIngressSpillsToTheQueueInOrder(t *testing.T) {
	p, release := busyPool(t, Goroutines, 1, 4)
	var order []int
	job := func(i int) jobs.Job { return jobs.Func(func(int) { order = append(order, i) }) }
	before := p.Stats()
	for i := range 50 {
		require.NoError(t, p.Enqueue(job(i)))
	}
	assert.Positive(t, p.Stats().Sub(before).EnqueueLockAcquisitions, "a full ingress is moved under the lock")
	require.NoError(t, p.EnqueueBatch([]jobs.Job{job(50), job(51)}))
	for i := 52; i < 60; i++ {
		require.NoError(t, p.Enqueue(job(i)))
	}
	close(release)
	require.NoError(t, p.Join(timeoutCtx(t)))
	want := make([]int, 60)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order)
}

func TestCloseAndJoinWaitForAReservedPush(t *testing.T) {
	p, err := start(Options{Workers: 2, Wake: Targeted}, 8)
	require.NoError(t, err)
	var j countJob
	publish := reserve(p.in, &j)

	joined := make(chan error, 1)
	go func() { joined <- p.Join(context.Background()) }()
	require.Eventually(t, func() bool { return p.joinWaiters.Load() > 0 }, 10*time.Second, time.Millisecond,
		"Join sleeps (a Join after Close returns at once)")
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case <-joined:
		t.Fatal("Join returned before an accepted job ran")
	case <-closed:
		t.Fatal("Close returned before an accepted job ran")
	case <-time.After(50 * time.Millisecond):
	}
	assert.ErrorIs(t, p.Enqueue(&j), ErrClosed, "Close refuses new jobs at once")
	publish()
	require.NoError(t, <-closed)
	require.NoError(t, <-joined)
	assert.EqualValues(t, 1, j.runs.Load())
}

// TestDiscardTakesTheJobsBehindAPositionStillBeingWritten: a producer
// preempted between its reservation and its publish does not hide the
// jobs of the Enqueues that returned after it from Discard: Discard waits
// for it and removes them all, and none runs.
func TestDiscardTakesTheJobsBehindAPositionStillBeingWritten(t *testing.T) {
	p, release := busyPool(t, Goroutines, 1, ingressCells)
	var slow, j countJob
	publish := reserve(p.in, &slow)
	for range 10 {
		require.NoError(t, p.Enqueue(&j))
	}
	go func() {
		time.Sleep(5 * time.Millisecond) // while Discard waits for the position
		publish()
	}()
	n := p.Discard()
	close(release)
	require.NoError(t, p.Join(timeoutCtx(t)))
	assert.Equal(t, 11, n)
	assert.Zero(t, j.runs.Load()+slow.runs.Load(), "a discarded job never runs")
}
