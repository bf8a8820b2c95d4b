package modelcheck

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/pausemodel"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoMeasuresEachHeapOnce: a second point of one heap (another
// worker count) recalls its work; another heap, or a failed measurement,
// measures again.
func TestMemoMeasuresEachHeapOnce(t *testing.T) {
	calls := 0
	fail := true
	work := memo(func(cfg gcsim.Config) (pausemodel.Work, error) {
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
	one := map[workerpool.MutexKind][]pausemodel.Costs{workerpool.MutexNormal: {{}, {}}, workerpool.MutexPI: {{}}}
	errs, err := calibrationRunErrors(one, []*report.Report{point("native", "pi", 2)}, func(gcsim.Config) (pausemodel.Work, error) {
		t.Fatal("measured a heap")
		return pausemodel.Work{}, nil
	}, nil)
	require.NoError(t, err)
	assert.Nil(t, errs)
}

// TestRunErrorsOnePerRun: each run's own costs give one error, even
// where the points (here one without runs) validate to nothing.
func TestRunErrorsOnePerRun(t *testing.T) {
	runs := map[workerpool.MutexKind][]pausemodel.Costs{workerpool.MutexNormal: {{}, {}, {}}, workerpool.MutexPI: {{}, {}, {}}}
	errs, err := calibrationRunErrors(runs, []*report.Report{point("native", "pi", 2)}, func(gcsim.Config) (pausemodel.Work, error) {
		return pausemodel.Work{}, nil
	}, nil)
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
	medians := map[workerpool.MutexKind]pausemodel.Costs{workerpool.MutexNormal: c, workerpool.MutexPI: c}
	runs := map[workerpool.MutexKind][]pausemodel.Costs{workerpool.MutexNormal: {c}, workerpool.MutexPI: {c}}
	many, err := predictManyCores(medians, runs, w, []int{2, 4})
	require.NoError(t, err)
	require.Len(t, many, 4)
	for i, want := range []struct {
		cores int
		k     workerpool.MutexKind
	}{{2, workerpool.MutexNormal}, {2, workerpool.MutexPI}, {4, workerpool.MutexNormal}, {4, workerpool.MutexPI}} {
		assert.Equal(t, want.cores, many[i].Cores)
		assert.Equal(t, want.k, many[i].Mutex)
	}
}

// TestCalibrateNamesTheKindItStoppedAt: the first kind's failure (here a
// cancelled context, or a build without the native pool) ends the
// calibration, naming the kind, before done is called.
func TestCalibrateNamesTheKindItStoppedAt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Calibrate(ctx, 1, func(workerpool.MutexKind, Calibration) { t.Error("done called for a failed kind") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "calibrating the normal mutex: ")
}

// TestCalibrationFacts: the median always; each cost's range only where
// there are runs to differ.
func TestCalibrationFacts(t *testing.T) {
	c := pausemodel.Costs{WakeCall: 3 * time.Microsecond}
	d := c
	d.WakeCall = 5 * time.Microsecond
	cal := Calibration{medians: map[workerpool.MutexKind]pausemodel.Costs{workerpool.MutexNormal: c, workerpool.MutexPI: c},
		runs: map[workerpool.MutexKind][]pausemodel.Costs{workerpool.MutexNormal: {c}, workerpool.MutexPI: {c, d}}}
	one := cal.Facts(workerpool.MutexNormal, "vm")
	require.Len(t, one, 1)
	assert.Equal(t, "calibration, normal mutex", one[0].Key)
	assert.Equal(t, "on vm, median of 1 runs: "+c.String(), one[0].Value)
	two := cal.Facts(workerpool.MutexPI, "vm")
	require.Len(t, two, 2)
	assert.Equal(t, "calibration runs' range (pi)", two[1].Key)
	assert.Contains(t, two[1].Value, "wake call 3µs–5µs")
}

// TestTablesInOrder: the check, by part, the Go backends only when a
// point of theirs is given, the predictions and the facts; a heap whose
// job costs cannot be measured is named.
func TestTablesInOrder(t *testing.T) {
	c := pausemodel.Costs{WakeCall: 3 * time.Microsecond, WakePer: 1500, Futile: 10 * time.Microsecond, Take: 400}
	cal := Calibration{medians: map[workerpool.MutexKind]pausemodel.Costs{workerpool.MutexNormal: c, workerpool.MutexPI: c},
		runs: map[workerpool.MutexKind][]pausemodel.Costs{workerpool.MutexNormal: {c}, workerpool.MutexPI: {c}}}
	w := pausemodel.Work{Roots: 5 * time.Microsecond, Major: []time.Duration{0, 400 * time.Microsecond}, LOS: []time.Duration{0, 200 * time.Microsecond}}
	work := func(gcsim.Config) (pausemodel.Work, error) { return w, nil }
	run := func(r *report.Report) *report.Report {
		run, err := report.NewRun(report.Host{Hostname: "h", Cores: 2}, []report.ModeInput{
			{Name: "perjob", Pauses: []float64{100, 120}}, {Name: "batch", Pauses: []float64{90, 100}}})
		require.NoError(t, err)
		r.Runs = []report.Run{run}
		return r
	}
	heap := gcsim.DefaultConfig()
	heap.MajorHeap, heap.LOS = 128<<20, 16<<20 // not the points' heap
	titles := func(reports ...*report.Report) []string {
		verdicts, tables, err := Tables(cal, reports, Measure{Work: work}, heap, []int{2})
		require.NoError(t, err)
		require.Len(t, verdicts, 4)
		var out []string
		for _, tab := range tables {
			out = append(out, strings.Fields(tab.Title)[0])
		}
		return out
	}
	native := run(point("native", "pi", 2))
	assert.Equal(t, []string{"model", "model", "scenarios", "timing-free"}, titles(native))
	assert.Equal(t, []string{"model", "model", "beside", "scenarios", "timing-free"}, titles(native, run(point("threads", "", 2))))
	_, _, err := Tables(cal, []*report.Report{native}, Measure{Work: func(cfg gcsim.Config) (pausemodel.Work, error) {
		if cfg.MajorHeap == heap.MajorHeap {
			return pausemodel.Work{}, errors.New("no room")
		}
		return w, nil
	}}, heap, []int{2})
	assert.ErrorContains(t, err, "measuring job costs at 128MiB + 16MiB: no room")
}
