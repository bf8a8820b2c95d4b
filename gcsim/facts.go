package gcsim

import "github.com/gcbench/gcbench/trace"

// The keys of a run's facts: run-wide numbers that belong to no mode, as
// reports keep them (Result.Facts, TraceFacts).
const (
	FactMajorGCs           = "major_gcs"            // Result.MajorGCs
	FactSimOverhead        = "sim_overhead_s"       // Result.SimOverhead, in seconds
	FactCollectionsTimed   = "collections_timed"    // the records of every mode (Result.Recorded)
	FactCollectionsWarmUp  = "collections_warm_up"  // the untimed warm-up collections of every mode
	FactTraceEventsWritten = "trace_events_written" // trace.Stats.Written of the run's trace
	FactTraceEventsDropped = "trace_events_dropped" // trace.Stats.Dropped of the run's trace
)

// Recorded counts the timed collections of every mode of r.
func (r *Result) Recorded() int {
	n := 0
	for _, m := range r.Modes {
		n += len(m.Records)
	}
	return n
}

// RecordedPerMode is the number of timed collections every mode of r has:
// the fewest any mode recorded, and 0 for a nil r or one without modes. A
// stopped run (Partial) whose RecordedPerMode is above 0 measured every
// mode, so that what it measured can be reported.
func (r *Result) RecordedPerMode() int {
	if r == nil || len(r.Modes) == 0 {
		return 0
	}
	n := len(r.Modes[0].Records)
	for _, m := range r.Modes {
		n = min(n, len(m.Records))
	}
	return n
}

// Facts returns r's run-wide numbers by key; warmup is the CompareOptions'
// Warmup the run was given.
func (r *Result) Facts(warmup int) map[string]float64 {
	return map[string]float64{
		FactMajorGCs:          float64(r.MajorGCs),
		FactSimOverhead:       r.SimOverhead.Seconds(),
		FactCollectionsTimed:  float64(r.Recorded()),
		FactCollectionsWarmUp: float64(warmup * len(r.Modes)),
	}
}

// TraceFacts returns the event counts of a run's trace (Config.Trace's
// Stats, once the session is closed) by key.
func TraceFacts(st trace.Stats) map[string]float64 {
	return map[string]float64{FactTraceEventsWritten: float64(st.Written), FactTraceEventsDropped: float64(st.Dropped)}
}
