package gcsim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

// smallExperiment is a comparison small enough for a test.
func smallExperiment() gcsim.Experiment {
	return gcsim.Experiment{Config: smallConfig(), Modes: []gcsim.Mode{gcsim.PerJob, gcsim.Batch}, GCs: 3, Warmup: 1}
}

// TestReportOfAComparison: a comparison's report holds every mode's
// pauses and counters, the facts of the result and the caller's, the run
// as the options describe it, the anatomy, and the experiment both as
// shown (in its fields' order) and typed, which reads back equal.
func TestReportOfAComparison(t *testing.T) {
	e := smallExperiment()
	res, err := gcsim.Compare(context.Background(), e.Config, e.Options())
	require.NoError(t, err)
	host := report.Host{Hostname: "h", Cores: 2, GOMAXPROCS: 3}
	started := time.Date(2026, 1, 2, 3, 4, 5, 678, time.FixedZone("east", 3600))
	r, err := e.Report(res, gcsim.ReportOptions{Host: host, Started: started, Partial: "stopped",
		Facts: map[string]float64{gcsim.FactTraceEventsWritten: 7, gcsim.FactMajorGCs: 99}})
	require.NoError(t, err)

	assert.Equal(t, report.Schema, r.Schema)
	assert.Equal(t, "minor-collection pause", r.Title)
	assert.Equal(t, "backend=goroutines gcs=3 gomaxprocs=auto los=8MiB major_heap=16MiB modes=perjob,batch nursery=256KiB "+
		"seed=1 verify=false wake=broadcast warmup=1 workers=2", r.Config.String())
	run := r.Runs[0]
	assert.Equal(t, host, run.Host)
	assert.Equal(t, time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC), run.Started)
	assert.Equal(t, "stopped", run.Partial)
	assert.Equal(t, report.Duration(res.Elapsed.Round(time.Millisecond)), run.Elapsed)
	assert.Equal(t, 7.0, run.Facts[gcsim.FactTraceEventsWritten])
	assert.Equal(t, 99.0, run.Facts[gcsim.FactMajorGCs], "the caller's fact replaces the result's")
	assert.Equal(t, 2.0*3, run.Facts[gcsim.FactCollectionsTimed])
	assert.Equal(t, 2.0*1, run.Facts[gcsim.FactCollectionsWarmUp])
	for i, m := range run.Modes {
		assert.Equal(t, e.Modes[i].String(), m.Name)
		require.Len(t, m.Pauses, 3)
		assert.InDelta(t, float64(res.Modes[i].Records[0].Pause)/1e3, m.Pauses[0], 1e-9, "µs")
		assert.Contains(t, m.CounterMeans, gcsim.CounterJobSpan.String())
	}
	require.True(t, r.HasAnatomy())
	assert.Len(t, r.Anatomy.Parts, len(gcsim.AnatomyParts()))
	assert.Equal(t, gcsim.AnatomyParts()[0].Label(), r.Anatomy.Parts[0].Label)

	back, err := gcsim.ReadExperiment(r)
	require.NoError(t, err)
	assert.Equal(t, e, back)

	other := e
	other.Modes = []gcsim.Mode{gcsim.Batch, gcsim.PerJob}
	_, err = other.Report(res, gcsim.ReportOptions{})
	assert.ErrorIs(t, err, report.ErrInvalidInput, "a result of other modes")
}

// TestReportScalingCounters: the scaling table's counters are
// ScalingCounters, in order, by the keys and labels a report gives them.
func TestReportScalingCounters(t *testing.T) {
	var want []report.ScalingCounter
	for _, c := range gcsim.ScalingCounters() {
		want = append(want, report.ScalingCounter{Key: c.String(), Label: c.Label()})
	}
	assert.Equal(t, want, gcsim.ReportScalingCounters())
	assert.Equal(t, "pool_futile_wakeups", want[0].Key, "the key scaling tables saved as JSON have")
}

// shownBefore is the configuration reports showed before gcsim made it
// (gcbench's run wrote each key itself): ReportConfig must show the same
// values, so that new reports merge with older ones.
func shownBefore(e gcsim.Experiment) map[string]string {
	cfg := e.Config
	names := ""
	for i, m := range e.Modes {
		if i > 0 {
			names += ","
		}
		names += m.String()
	}
	gomaxprocs := "auto"
	if e.GOMAXPROCS != 0 {
		gomaxprocs = strconv.Itoa(e.GOMAXPROCS)
	}
	c := map[string]string{
		"major_heap": bytesize.Format(cfg.MajorHeap), "los": bytesize.Format(cfg.LOS), "nursery": bytesize.Format(cfg.Nursery),
		"workers": strconv.Itoa(cfg.Workers), "gcs": strconv.Itoa(e.GCs), "warmup": strconv.Itoa(e.Warmup), "modes": names,
		"backend": cfg.Backend.String(), "wake": cfg.Wake.String(), "seed": strconv.FormatUint(cfg.Seed, 10),
		"verify": strconv.FormatBool(cfg.Verify), "gomaxprocs": gomaxprocs,
	}
	if cfg.Backend == workerpool.Native {
		c["mutex"] = cfg.Mutex.String()
	}
	if e.LockCollector {
		c["collector"] = "locked-thread"
	}
	return c
}

// TestReportConfigShowsWhatReportsShowed: the shown configuration has the
// values reports had before, sorted by key as they were.
func TestReportConfigShowsWhatReportsShowed(t *testing.T) {
	native := gcsim.DefaultExperiment()
	native.Config.Backend, native.Config.Mutex, native.Config.Workers = workerpool.Native, workerpool.MutexPI, 8
	threads := smallExperiment()
	threads.Config.Backend, threads.Config.Wake, threads.Config.Verify, threads.Config.Seed = workerpool.Threads, workerpool.Targeted, true, 1<<63
	threads.GOMAXPROCS, threads.LockCollector = 9, true
	for name, tc := range map[string]struct {
		e    gcsim.Experiment
		want string
	}{
		"native, default GOMAXPROCS": {native, "backend=native gcs=1500 gomaxprocs=auto los=1GiB major_heap=2.5GiB " +
			"modes=serial,perjob,batch mutex=pi nursery=4MiB seed=1 verify=false wake=broadcast warmup=50 workers=8"},
		"threads, locked": {threads, "backend=threads collector=locked-thread gcs=3 gomaxprocs=9 los=8MiB major_heap=16MiB " +
			"modes=perjob,batch nursery=256KiB seed=9223372036854775808 verify=true wake=targeted warmup=1 workers=2"},
	} {
		c := tc.e.ReportConfig()
		assert.Equal(t, tc.want, c.String(), name)
		got := map[string]string{}
		for _, p := range c {
			got[p.Key] = p.Value
		}
		assert.Equal(t, shownBefore(tc.e), got, name)
	}
}

// TestReadExperimentIsStrict: what a report saved reads back onto the
// defaults; an unknown key, a bad value or a configuration Validate
// refuses is an error naming the key; a report without typed settings is
// ErrNoSettings.
func TestReadExperimentIsStrict(t *testing.T) {
	r := &report.Report{Schema: report.Schema, Settings: json.RawMessage(`{"gcs": 7, "workers": 3}`)}
	e, err := gcsim.ReadExperiment(r)
	require.NoError(t, err)
	want := gcsim.DefaultExperiment()
	want.GCs, want.Config.Workers = 7, 3
	assert.Equal(t, want, e, "absent settings keep their defaults")

	for settings, key := range map[string]string{
		`{"wrokers": 2}`:                    "wrokers",
		`{"wake": "shout"}`:                 "wake",
		`{"major_heap": "lots"}`:            "major_heap",
		`{"mutator": {"major_fil": 0.5}}`:   "mutator.major_fil",
		`{"workers": 0}`:                    "workers",
		`{"mutator": {"lifetime": 0}}`:      "mutator.lifetime",
		`{"modes": ["serial", "sideways"]}`: "modes",
	} {
		_, err := gcsim.ReadExperiment(&report.Report{Schema: report.Schema, Settings: json.RawMessage(settings)})
		var se *setting.Error
		require.ErrorAs(t, err, &se, settings)
		assert.Equal(t, key, se.Field, settings)
	}

	_, err = gcsim.ReadExperiment(&report.Report{Schema: report.SchemaV1})
	assert.ErrorIs(t, err, gcsim.ErrNoSettings)
	assert.Contains(t, err.Error(), report.SchemaV1)
}

// TestDiffReportNamesTheFirstSetting: a report of the experiment is no
// difference; one of another names the first setting that differs, by
// its typed settings, or by what it shows when it has none.
func TestDiffReportNamesTheFirstSetting(t *testing.T) {
	e := smallExperiment()
	saved := func(e gcsim.Experiment) *report.Report {
		b, err := json.Marshal(e)
		require.NoError(t, err)
		return &report.Report{Schema: report.Schema, Config: e.ReportConfig(), Settings: b}
	}
	d, err := e.DiffReport(saved(e))
	require.NoError(t, err)
	assert.Nil(t, d)

	for name, tc := range map[string]struct {
		edit func(*gcsim.Experiment)
		want gcsim.Difference
	}{
		"gcs":            {func(o *gcsim.Experiment) { o.GCs = 4 }, gcsim.Difference{Key: "gcs", Report: "4", Experiment: "3"}},
		"a size":         {func(o *gcsim.Experiment) { o.Config.LOS = 16 << 20 }, gcsim.Difference{Key: "los", Report: "16MiB", Experiment: "8MiB"}},
		"locked":         {func(o *gcsim.Experiment) { o.LockCollector = true }, gcsim.Difference{Key: "lock_collector", Report: "true", Experiment: "false"}},
		"mutator":        {func(o *gcsim.Experiment) { o.Config.Mutator.Lifetime = 4 }, gcsim.Difference{Key: "mutator.lifetime", Report: "4", Experiment: "8"}},
		"modes":          {func(o *gcsim.Experiment) { o.Modes = []gcsim.Mode{gcsim.Serial, gcsim.Batch} }, gcsim.Difference{Key: "modes", Report: "serial,batch", Experiment: "perjob,batch"}},
		"the first only": {func(o *gcsim.Experiment) { o.GCs, o.Config.Workers = 4, 1 }, gcsim.Difference{Key: "workers", Report: "1", Experiment: "2"}},
	} {
		o := e
		tc.edit(&o)
		d, err := e.DiffReport(saved(o))
		require.NoError(t, err, name)
		assert.Equal(t, &tc.want, d, name)
	}

	locked := e
	locked.LockCollector = true
	v1 := saved(locked)
	v1.Schema, v1.Settings = report.SchemaV1, nil
	d, err = e.DiffReport(v1)
	require.NoError(t, err)
	assert.Equal(t, &gcsim.Difference{Key: "collector", Report: "locked-thread", Experiment: "(unset)"}, d, "a version-1 report: by what it shows")
	v1.Config = e.ReportConfig()
	d, err = e.DiffReport(v1)
	assert.NoError(t, err)
	assert.Nil(t, d)

	bad := saved(e)
	bad.Settings = json.RawMessage(`{"wrokers": 2}`)
	_, err = e.DiffReport(bad)
	var se *setting.Error
	assert.ErrorAs(t, err, &se)
	assert.False(t, errors.Is(err, gcsim.ErrNoSettings))
}
