package modelcheck

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gcbench/gcbench/workerpool"
)

// repeat is one run of a 2-core, 8-worker PI point priced by serial
// collections of mean serial, whose perjob and batch means are the
// factors per and batch of it, each with an envelope 1% wide around
// serial's 1.2 and 0.9 and a standard error of 0.1% of serial.
func repeat(serial, per, batch float64) validation {
	v := val(workerpool.MutexPI, 2, 8, 0, 0)
	v.Referenced, v.PredictionRelSE = true, 0
	v.MeasuredPerJob, v.MeasuredBatch = per*serial, batch*serial
	v.PerJobLow, v.PerJobHigh = 1.2*serial, 1.212*serial
	v.BatchLow, v.BatchHigh = 0.9*serial, 0.909*serial
	v.PerJobSE, v.BatchSE = serial/1000, serial/1000
	return v
}

func TestCeilingHoldsRepeatsThatAgreeAtAnyScale(t *testing.T) {
	// The model is 25% off at this point, but every repeat is off alike.
	g := []validation{repeat(1000, 1.5, 1.1), repeat(1300, 1.5, 1.1), repeat(800, 1.505, 1.104)}
	assert.Equal(t, ceiling{Inside: 3, Points: 3, Repeated: 3}, envelopeCeiling(g))
}

func TestCeilingCountsWhatTheRepeatsSpreadForbids(t *testing.T) {
	// Perjob's three repeats lie 30% apart against an envelope 1% wide:
	// one factor holds one of them, and batch agrees, so one is the most.
	g := []validation{repeat(1000, 1.2, 0.9), repeat(1000, 1.56, 0.9), repeat(1000, 1.0, 0.9)}
	// A point measured once is never the spread's fault.
	once := val(workerpool.MutexPI, 1, 8, 0, 0)
	assert.Equal(t, ceiling{Inside: 2, Points: 4, Repeated: 3}, envelopeCeiling(append(g, once)))

	// Two agree on perjob, two others on batch: no factor pair holds more
	// than the one repeat they share.
	g = []validation{repeat(1000, 1.2, 0.9), repeat(1000, 1.2, 1.3), repeat(1000, 1.6, 1.3)}
	assert.Equal(t, 1, bestScaled(g))
}

func TestCeilingNoteOnlyWithRepeats(t *testing.T) {
	assert.Empty(t, ceilingNote([]validation{val(workerpool.MutexPI, 2, 8, 0, 0)}))
	assert.Contains(t, ceilingNote([]validation{repeat(1000, 1.2, 0.9), repeat(1000, 1.56, 0.9)}), "1 of 2 points could be inside (50%")
}
