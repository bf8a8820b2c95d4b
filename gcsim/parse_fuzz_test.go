package gcsim

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/setting"
)

func FuzzParseMode(f *testing.F) {
	parsetest.Fuzz(f, ParseMode, ErrInvalidConfig, Modes(), "PerJob", "per-job", "start batch")
}

// FuzzReadExperiment: whatever a report's saved settings hold, ReadExperiment
// never panics; what it accepts validates as a whole experiment, starts a
// run (runTiny) without a runtime fatal error, and writes and reads back as
// itself, and what it refuses is refused with an error that names a
// setting or says the JSON is malformed.
func FuzzReadExperiment(f *testing.F) {
	def, _ := json.Marshal(DefaultExperiment())
	for _, seed := range []string{string(def), `{}`, `{"gcs": 7, "workers": 3}`, `{"major_heap": "64MiB", "modes": "batch,serial"}`,
		`{"mutator": {"major_fill": 0.5}}`, `{"gcs": -1}`, `{"nope": 1}`, `{"wake": "spin", "backend": "native"}`, `[`, `null`,
		`{"gomaxprocs": 2147483648}`, `{"gomaxprocs": 100000}`, `{"gomaxprocs": -7}`, `{"modes": []}`, `{"modes": ["batch","batch"]}`,
		`{"gcs": 0}`, `{"gomaxprocs": 4097, "workers": 3, "backend": "threads", "wake": "spin", "lock_collector": true}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, settings []byte) {
		r := &report.Report{Schema: report.Schema, Settings: settings}
		e, err := ReadExperiment(r)
		if err != nil {
			var se *setting.Error
			var syntax *json.SyntaxError
			var typ *json.UnmarshalTypeError
			if !errors.As(err, &se) && !errors.As(err, &syntax) && !errors.As(err, &typ) && !errors.Is(err, ErrNoSettings) {
				t.Fatalf("refused without naming a setting or the JSON's fault: %v (%T)", err, err)
			}
			return
		}
		if verr := e.Validate(); verr != nil {
			t.Fatalf("accepted an invalid experiment: %v", verr)
		}
		runTiny(t, e)
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("an accepted experiment does not marshal: %v", err)
		}
		again, err := ReadExperiment(&report.Report{Schema: report.Schema, Settings: b})
		if err != nil {
			t.Fatalf("its own settings are refused: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(e, again) {
			t.Fatalf("read back as a different experiment:\n%+v\n%+v", e, again)
		}
	})
}

// runTiny runs e's comparison as a front end would — at e's GOMAXPROCS
// (Procs), with its modes, backend, wake policy, mutex kind and collector
// thread — on a tiny heap, with at most 8 workers, for one collection per
// mode: what the settings reach besides the heap's sizes must start a run.
// (A runtime fatal error, such as GOMAXPROCS 2^31 gave, ends the fuzzing
// process, which the fuzzer reports as a crasher.)
func runTiny(t *testing.T, e Experiment) {
	tiny := e
	tiny.Config = tinyConfig(e.Config.Seed, 4)
	tiny.Config.Verify = false
	tiny.Config.Workers = min(e.Config.Workers, 8)
	tiny.Config.Backend, tiny.Config.Wake, tiny.Config.Mutex = e.Config.Backend, e.Config.Wake, e.Config.Mutex
	tiny.GCs, tiny.Warmup = 1, 0
	if err := tiny.Validate(); err != nil {
		t.Fatalf("the tiny run of an accepted experiment is invalid: %v", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(e.Procs()))
	res, err := tiny.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("the tiny run of an accepted experiment failed: %v", err)
	}
	if _, err := tiny.Report(res, ReportOptions{}); err != nil {
		t.Fatalf("the tiny run of an accepted experiment cannot be reported: %v", err)
	}
}
