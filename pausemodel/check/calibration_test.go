package check

import (
	"errors"
	"testing"
	"time"

	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoMeasuresEachHeapOnce: a second point of one heap (another
// worker count) recalls its work; another heap, or a failed measurement,
// measures again.
func TestMemoMeasuresEachHeapOnce(t *testing.T) {
	calls := 0
	fail := true
	work := Memo(func(cfg gcsim.Config) (pausemodel.Work, error) {
		calls++
		if fail {
			return pausemodel.Work{}, errors.New("no heap")
		}
		return pausemodel.Work{Roots: time.Duration(cfg.MajorHeap)}, nil
	})
	a := gcsim.DefaultConfig()
	_, err := work(a)
	require.Error(t, err)
	fail = false
	w, err := work(a)
	require.NoError(t, err)
	assert.Equal(t, time.Duration(a.MajorHeap), w.Roots)
	b := a
	b.Workers++
	_, _ = work(b)
	assert.Equal(t, 2, calls, "a failure is not recalled; another worker count is the same heap")
	b.MajorHeap *= 2
	_, _ = work(b)
	assert.Equal(t, 3, calls)
}

// TestRunErrorsNeedTwoRuns: a single calibration run has no spread to
// show, and validates nothing.
func TestRunErrorsNeedTwoRuns(t *testing.T) {
	one := map[pausemodel.Mutex][]pausemodel.Costs{pausemodel.Normal: {{}, {}}, pausemodel.PI: {{}}}
	errs, err := RunErrors(one, []*report.Report{point("native", "pi", 2)}, func(gcsim.Config) (pausemodel.Work, error) {
		t.Fatal("measured a heap")
		return pausemodel.Work{}, nil
	})
	require.NoError(t, err)
	assert.Nil(t, errs)
}

// TestRunErrorsOnePerRun: each run's own costs give one error, even
// where the points (here one without runs) validate to nothing.
func TestRunErrorsOnePerRun(t *testing.T) {
	runs := map[pausemodel.Mutex][]pausemodel.Costs{pausemodel.Normal: {{}, {}, {}}, pausemodel.PI: {{}, {}, {}}}
	errs, err := RunErrors(runs, []*report.Report{point("native", "pi", 2)}, func(gcsim.Config) (pausemodel.Work, error) {
		return pausemodel.Work{}, nil
	})
	require.NoError(t, err)
	assert.Len(t, errs, 3)
}

func TestCheckableIsANativePointWithRuns(t *testing.T) {
	r := point("native", "pi", 2)
	assert.False(t, Checkable(r), "no runs")
	r.Runs = []report.Run{{}}
	assert.True(t, Checkable(r))
	g := point("threads", "", 2)
	g.Runs = []report.Run{{}}
	assert.False(t, Checkable(g), "a Go backend's point is shown beside, not checked")
}

// TestPredictManyCoresByCoresThenKind: one prediction per core count and
// kind, in the tables' order.
func TestPredictManyCoresByCoresThenKind(t *testing.T) {
	w := pausemodel.Work{Roots: 5 * time.Microsecond, Major: []time.Duration{0, 400 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond}}
	c := pausemodel.Costs{WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 10 * time.Microsecond, Take: 400}
	medians := map[pausemodel.Mutex]pausemodel.Costs{pausemodel.Normal: c, pausemodel.PI: c}
	runs := map[pausemodel.Mutex][]pausemodel.Costs{pausemodel.Normal: {c}, pausemodel.PI: {c}}
	many, err := PredictManyCores(medians, runs, w, []int{2, 4})
	require.NoError(t, err)
	require.Len(t, many, 4)
	for i, want := range []struct {
		cores int
		k     pausemodel.Mutex
	}{{2, pausemodel.Normal}, {2, pausemodel.PI}, {4, pausemodel.Normal}, {4, pausemodel.PI}} {
		assert.Equal(t, want.cores, many[i].Cores)
		assert.Equal(t, want.k, many[i].Mutex)
	}
}
