package workerpool

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/internal/testwait"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGroupPanicNilIsAPanic: under GODEBUG=panicnil=1 a group's or Map's
// job that calls panic(nil) is one panic, reported once, and the group
// finishes it once: Wait returns it (not ErrJobGoexit), a limited group
// takes more jobs, and the pool still closes. Group.call took such a
// panic for a Goexit and finished the job twice (issue 41).
func TestGroupPanicNilIsAPanic(t *testing.T) {
	t.Setenv("GODEBUG", "panicnil=1")
	for _, opts := range [][]GroupOption{nil, {GroupLimit(1)}} {
		p := newPool(t, Options{Workers: 2})
		g := p.NewGroup(context.Background(), opts...)
		g.Go(func(context.Context, int) error { panic(nil) })
		ran := false
		g.Go(func(context.Context, int) error { ran = true; return nil })
		err := g.WaitCtx(timeoutCtx(t))
		var pe *PanicError
		require.ErrorAs(t, err, &pe)
		assert.Nil(t, pe.Value)
		assert.NotErrorIs(t, err, ErrJobGoexit)
		assert.True(t, ran)
		require.NoError(t, p.Join(timeoutCtx(t)))
		require.NoError(t, p.Shutdown(timeoutCtx(t)))
	}
	p := newPool(t, Options{Workers: 1})
	_, err := Map(timeoutCtx(t), p, []int{1, 2, 3}, func(_ context.Context, _ int, i int) (int, error) {
		if i == 2 {
			panic(nil)
		}
		return i, nil
	})
	assert.ErrorIs(t, err, ErrJobPanicked)
	assert.NotErrorIs(t, err, ErrJobGoexit)
}

// TestGroupAllErrorsCountsRefusals: 10,000 Go calls on a closed pool give
// one ErrClosed that counts them, not 10,000 joined errors.
func TestGroupAllErrorsCountsRefusals(t *testing.T) {
	p, err := New(Options{Workers: 1})
	require.NoError(t, err)
	require.NoError(t, p.Close())
	g := p.NewGroup(context.Background(), GroupAllErrors())
	for range 10000 {
		g.Go(func(context.Context, int) error { return nil })
	}
	err = g.Wait()
	require.ErrorIs(t, err, ErrClosed)
	assert.Contains(t, err.Error(), "10000 jobs")
	assert.Equal(t, 1, strings.Count(err.Error(), ErrClosed.Error()))
	assert.Less(t, len(err.Error()), 200)
}

// TestShutdownDropsCarryACause: a group's jobs that Shutdown drops at its
// deadline are reported with that deadline as their cause, and so are
// Shutdown's own dropped jobs.
func TestShutdownDropsCarryACause(t *testing.T) {
	p := newPool(t, Options{Workers: 1})
	b := blockWorkers(t, p)
	g := p.NewGroup(context.Background())
	for range 10 {
		g.Go(func(context.Context, int) error { return nil })
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	shut := make(chan error, 1)
	go func() { shut <- p.Shutdown(ctx) }()
	require.Eventually(t, func() bool { return p.Stats().Dropped == 10 }, 20*time.Second, time.Millisecond)
	b.open()
	err := testwait.Recv(t, shut, 20*time.Second, "Shutdown's return")
	var de *DroppedError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, de.Cause, context.Canceled)
	gerr := g.Wait()
	require.ErrorAs(t, gerr, &de)
	assert.Equal(t, 10, de.Count)
	require.Error(t, de.Cause, "Shutdown's drops say why")
	assert.ErrorIs(t, gerr, context.Canceled)
	assert.NoError(t, p.Close())
}
