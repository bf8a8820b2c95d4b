package gcsim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// CompareOptions selects what Compare runs.
type CompareOptions struct {
	// Modes to compare, each once (default: every mode, Modes()), each GCs recorded
	// collections after Warmup unrecorded ones.
	Modes       []Mode
	GCs, Warmup int
	// Progress, if set, is called after every recorded collection.
	Progress func(mode Mode, done, total int)
}

// Result is what Compare measured.
type Result struct {
	Config Config
	Modes  []ModeResult
	// MajorGCs is the number of untimed major collections during the run.
	MajorGCs int
	// Elapsed is the wall time of the whole run, New and Close included.
	Elapsed time.Duration
	// SimOverhead is Elapsed minus the recorded pauses: building the heap,
	// mutator phases, major collections, verification, warm-up collections
	// and bookkeeping. Divide by the number of recorded collections for
	// what a run costs per collection beyond its pauses.
	SimOverhead time.Duration
	// Partial is set when Compare stopped before recording every
	// collection (its error says why): Modes then hold the collections
	// finished before the stop, possibly none.
	Partial bool
}

// ModeResult holds one mode's records, in the order they were taken.
type ModeResult struct {
	Mode    Mode
	Records []Record
}

// Compare runs the modes in rotating rounds on one evolving heap — round r
// runs modes[r%m], modes[(r+1)%m], … — so that drift in the machine or the
// heap hits every mode alike. Each collection is preceded by its own
// mutator phase. Warmup rounds are run first and not recorded.
//
// Compare looks at ctx between collections and inside every long untimed
// phase (building the heap, mutator phases, major collections,
// verification) after about every MiB of work; a pause only between its
// enqueues, and a cancel discards its queued jobs (Sim.CollectContext). What
// it returns:
//
//   - nil error: every record, Partial false.
//   - bad options or configuration: a nil Result and a *setting.Error.
//   - ctx ended: a non-nil Result with Partial set and an error wrapping
//     ctx.Err(). Modes hold, in order, every collection recorded before the
//     stop (none if the heap was still being built; the modes' counts may
//     differ by one, as the stop can fall inside a round; a collection
//     whose pause or verification was interrupted is not recorded);
//     MajorGCs, Elapsed and SimOverhead cover the run up to the stop.
//   - any other failure after the simulation was built (a full heap, a
//     verification failure): the same partial Result and that error; a
//     failure to build it (New's errors): a nil Result.
func Compare(ctx context.Context, cfg Config, opt CompareOptions) (*Result, error) {
	start := time.Now()
	modes, err := opt.validate()
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Modes: make([]ModeResult, len(modes))}
	for i, m := range modes {
		res.Modes[i] = ModeResult{Mode: m, Records: make([]Record, 0, min(opt.GCs, 1<<16))}
	}
	s, err := NewContext(ctx, cfg)
	if err != nil {
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			return nil, err
		}
		res.finish(start, 0, true)
		return res, err
	}
	paused, err := res.rounds(ctx, s, opt)
	partial := err != nil
	res.MajorGCs = s.MajorGCs()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	res.finish(start, paused, partial)
	return res, err
}

// validate checks the options and returns the modes to run.
func (opt CompareOptions) validate() ([]Mode, error) {
	modes := opt.Modes
	if len(modes) == 0 {
		modes = Modes()
	}
	if err := validateModes(modes, true); err != nil {
		return nil, err
	}
	switch {
	case opt.GCs < 1:
		return nil, badValue(KeyGCs, opt.GCs, "≥ 1")
	case opt.Warmup < 0:
		return nil, badValue(KeyWarmup, opt.Warmup, "≥ 0")
	case opt.Warmup > math.MaxInt-opt.GCs:
		// The round count would wrap negative and run nothing.
		return nil, badValue(KeyWarmup, opt.Warmup,
			fmt.Sprintf("≤ %d, so that warmup + gcs (gcs = %d) fits an int", math.MaxInt-opt.GCs, opt.GCs))
	}
	return modes, nil
}

// rounds runs the warm-up and recorded rounds, appending records to res,
// and returns the recorded pauses' total.
func (res *Result) rounds(ctx context.Context, s *Sim, opt CompareOptions) (paused time.Duration, err error) {
	n := len(res.Modes)
	for round := range opt.Warmup + opt.GCs {
		for k := range n {
			if err := ctx.Err(); err != nil {
				return paused, fmt.Errorf("gcsim: compare interrupted: %w", err)
			}
			i := (round + k) % n
			if err := s.MutateContext(ctx); err != nil {
				return paused, err
			}
			rec, err := s.CollectContext(ctx, res.Modes[i].Mode)
			if err != nil {
				return paused, err
			}
			if round < opt.Warmup {
				continue
			}
			paused += rec.Pause
			res.Modes[i].Records = append(res.Modes[i].Records, rec)
			if opt.Progress != nil {
				opt.Progress(res.Modes[i].Mode, round-opt.Warmup+1, opt.GCs)
			}
		}
	}
	return paused, nil
}

func (res *Result) finish(start time.Time, paused time.Duration, partial bool) {
	res.Elapsed = time.Since(start)
	res.SimOverhead = res.Elapsed - paused
	res.Partial = partial
}
