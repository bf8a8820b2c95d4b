package gcsim_test

import (
	"encoding/json"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/gcsim"
	"github.com/gcbench/gcbench/setting"
	"github.com/gcbench/gcbench/workerpool"
)

func readSettings(settings string) (gcsim.Experiment, error) {
	return gcsim.ReadExperiment(&report.Report{Schema: report.Schema, Settings: json.RawMessage(settings)})
}

// TestReadExperimentValidatesTheWholeExperiment: what a saved report's
// settings hold beside the simulation — modes, counts, GOMAXPROCS — is
// checked as the flags check it, naming the key. Before, only the Config
// was: gomaxprocs 2^31 was a fatal error in the runtime, 10^5 an abort in
// pthread_create, −7 saved into the next report; modes [] or a duplicate
// ran a whole comparison and then failed to report it; gcs MaxInt64
// blamed warmup.
func TestReadExperimentValidatesTheWholeExperiment(t *testing.T) {
	for settings, key := range map[string]string{
		`{"gomaxprocs": 2147483648}`:          "gomaxprocs",
		`{"gomaxprocs": 100000}`:              "gomaxprocs",
		`{"gomaxprocs": -7}`:                  "gomaxprocs",
		`{"modes": []}`:                       "modes",
		`{"modes": ["batch", "batch"]}`:       "modes",
		`{"gcs": 0}`:                          "gcs",
		`{"gcs": -1}`:                         "gcs",
		`{"gcs": 9223372036854775807}`:        "gcs",
		`{"warmup": -5}`:                      "warmup",
		`{"warmup": 9223372036854775807}`:     "warmup",
		`{"gcs": null}`:                       "gcs",
		`{"mutator": null}`:                   "mutator",
		`{"mutator": {"major_fill": null}}`:   "mutator.major_fill",
		`{"backend": "threads", "wake": "x"}`: "wake",
	} {
		_, err := readSettings(settings)
		var se *setting.Error
		require.ErrorAs(t, err, &se, settings)
		assert.Equal(t, key, se.Field, settings)
	}
	_, err := readSettings(`{"gomaxprocs": 4097, "modes": ["serial"], "gcs": 1, "warmup": 0}`)
	assert.NoError(t, err, "the bounds themselves are accepted")
}

// TestNullSettingsAreNoSettings: "settings": null is a report without
// settings, not the default 2.5 GiB experiment.
func TestNullSettingsAreNoSettings(t *testing.T) {
	for _, settings := range []string{`null`, ` null `} {
		_, err := readSettings(settings)
		assert.ErrorIs(t, err, gcsim.ErrNoSettings, settings)
	}
}

// TestNativeSpinIsRefusedByValidate: the Native backend has no Spin
// policy; Validate says so, naming the wake policy and those it takes,
// before any heap is built (New refused it only after). Before, it was
// refused only when the pool started, after the heap was populated.
func TestNativeSpinIsRefusedByValidate(t *testing.T) {
	if !workerpool.NativeAvailable {
		t.Skip("the native backend is not built in")
	}
	c := gcsim.DefaultConfig()
	c.Backend, c.Wake = workerpool.Native, workerpool.Spin
	err := c.Validate()
	var se *setting.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, gcsim.KeyWake, se.Field)
	assert.Equal(t, "broadcast, signal or targeted on the native backend", se.Want)
	assert.ErrorIs(t, err, workerpool.ErrUnsupported)
	_, err = readSettings(`{"backend": "native", "wake": "spin"}`)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, gcsim.KeyWake, se.Field)
}

// TestPoolOptionsAreWhatValidateChecks: the pool gcsim starts is the one
// workerpool.Options.Validate accepts, its mutex kind only where the
// backend has kinds (the rule's one owner, Backend.HasMutexKinds).
func TestPoolOptionsAreWhatValidateChecks(t *testing.T) {
	c := gcsim.DefaultConfig()
	c.Backend, c.Mutex, c.Wake = workerpool.Threads, workerpool.MutexPI, workerpool.Spin
	require.NoError(t, c.Validate())
	o := c.PoolOptions()
	assert.Equal(t, workerpool.MutexNormal, o.Mutex, "threads have no mutex kinds")
	assert.True(t, o.Gated)
	require.NoError(t, o.Validate())
}

// TestCheckHerdRefusesAHerdTheMachineCannotWake: 4096 workers broadcast
// to per job on 2 CPUs are 134 million futile wake-ups per collection;
// the error names the workers and how many fit. Goroutines or not, any
// backend's broadcast wakes them all; Targeted has no herd; a limit of 0
// allows anything.
func TestCheckHerdRefusesAHerdTheMachineCannotWake(t *testing.T) {
	e := gcsim.DefaultExperiment()
	e.Config.Workers, e.Config.Wake = 4096, workerpool.Broadcast
	assert.Equal(t, int64(4096*(1+2*4*4096+1)), e.Herd())
	err := e.CheckHerd(gcsim.DefaultHerdLimit, 2)
	var se *setting.Error
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, gcsim.ErrHerdTooLarge)
	assert.Equal(t, gcsim.KeyWorkers, se.Field)
	assert.Contains(t, se.Want, "at most 511 on 2 CPUs")

	fit := e
	fit.Config.Workers = 511
	assert.NoError(t, fit.CheckHerd(gcsim.DefaultHerdLimit, 2), "the bound it names is accepted")
	fit.Config.Workers = 512
	assert.Error(t, fit.CheckHerd(gcsim.DefaultHerdLimit, 2), "and is tight")

	assert.NoError(t, e.CheckHerd(0, 2), "0: no limit")
	assert.NoError(t, e.CheckHerd(math.MaxInt64, 2), "the largest limit --herd-limit takes allows every herd")
	batch := e
	batch.Modes = []gcsim.Mode{gcsim.Serial, gcsim.Batch}
	assert.NoError(t, batch.CheckHerd(gcsim.DefaultHerdLimit, 2), "two broadcasts per collection")
	targeted := e
	targeted.Config.Wake = workerpool.Targeted
	assert.Zero(t, targeted.Herd())
	assert.NoError(t, gcsim.DefaultExperiment().CheckHerd(gcsim.DefaultHerdLimit, runtime.NumCPU()), "the seed experiment runs")
}

// TestExperimentValidateBounds: every bound Validate names is one it
// accepts.
func TestExperimentValidateBounds(t *testing.T) {
	e := gcsim.DefaultExperiment()
	e.GCs, e.Warmup, e.GOMAXPROCS = gcsim.MaxCollections, gcsim.MaxCollections, gcsim.MaxGOMAXPROCS
	require.NoError(t, e.Validate())
	e.GCs = math.MaxInt
	var se *setting.Error
	require.ErrorAs(t, e.Validate(), &se)
	assert.Equal(t, "gcs", se.Field, "not warmup")
}
