package gcsim

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/internal/parsetest"
	"github.com/gcbench/gcbench/setting"
)

func FuzzParseMode(f *testing.F) {
	parsetest.Fuzz(f, ParseMode, ErrInvalidConfig, Modes(), "PerJob", "per-job", "start batch")
}

// FuzzReadExperiment: whatever a report's saved settings hold, ReadExperiment
// never panics; what it accepts is a valid experiment that writes and reads
// back as itself, and what it refuses is refused with an error that names a
// setting or says the JSON is malformed.
func FuzzReadExperiment(f *testing.F) {
	def, _ := json.Marshal(DefaultExperiment())
	for _, seed := range []string{string(def), `{}`, `{"gcs": 7, "workers": 3}`, `{"major_heap": "64MiB", "modes": "batch,serial"}`,
		`{"mutator": {"major_fill": 0.5}}`, `{"gcs": -1}`, `{"nope": 1}`, `{"wake": "spin", "backend": "native"}`, `[`, `null`} {
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
		if verr := e.Config.Validate(); verr != nil {
			t.Fatalf("accepted an invalid configuration: %v", verr)
		}
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
