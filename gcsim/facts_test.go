package gcsim

import "testing"

func TestRecordedPerModeIsTheFewest(t *testing.T) {
	two := &Result{Modes: []ModeResult{{Mode: PerJob, Records: make([]Record, 3)}, {Mode: Batch, Records: make([]Record, 2)}}}
	none := &Result{Modes: []ModeResult{{Mode: PerJob, Records: make([]Record, 3)}, {Mode: Batch}}}
	for name, c := range map[string]struct {
		r    *Result
		want int
	}{"two each": {two, 2}, "a mode without records": {none, 0}, "no modes": {&Result{}, 0}, "nil": {nil, 0}} {
		if got := c.r.RecordedPerMode(); got != c.want {
			t.Errorf("%s: RecordedPerMode() = %d, want %d", name, got, c.want)
		}
	}
}
