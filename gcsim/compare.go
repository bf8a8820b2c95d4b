package gcsim

import (
	"context"
	"fmt"
	"math"
	"time"
)

// CompareOptions selects what Compare runs.
type CompareOptions struct {
	// Modes to compare (default: all three), each GCs recorded collections
	// after Warmup unrecorded ones.
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
}

// ModeResult holds one mode's records, in the order they were taken.
type ModeResult struct {
	Mode    Mode
	Records []Record
}

// Compare runs the modes in rotating rounds on one evolving heap — round r
// runs modes[r%m], modes[(r+1)%m], … — so that drift in the machine or the
// heap hits every mode alike. Each collection is preceded by its own
// mutator phase. Warmup rounds are run first and not recorded. The context
// is checked between collections.
func Compare(ctx context.Context, cfg Config, opt CompareOptions) (*Result, error) {
	start := time.Now()
	modes := opt.Modes
	if len(modes) == 0 {
		modes = Modes()
	}
	for _, m := range modes {
		if m < Serial || m > Batch {
			return nil, fmt.Errorf("%w: mode %d", ErrInvalidConfig, int(m))
		}
	}
	switch {
	case opt.GCs < 1:
		return nil, fmt.Errorf("%w: GCs = %d, want ≥ 1", ErrInvalidConfig, opt.GCs)
	case opt.Warmup < 0:
		return nil, fmt.Errorf("%w: Warmup = %d, want ≥ 0", ErrInvalidConfig, opt.Warmup)
	case opt.Warmup > math.MaxInt-opt.GCs:
		// The round count would wrap negative and run nothing.
		return nil, fmt.Errorf("%w: Warmup + GCs = %d + %d overflows an int", ErrInvalidConfig, opt.Warmup, opt.GCs)
	}
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	res := &Result{Config: cfg, Modes: make([]ModeResult, len(modes))}
	for i, m := range modes {
		res.Modes[i] = ModeResult{Mode: m, Records: make([]Record, 0, min(opt.GCs, 1<<16))}
	}
	var paused time.Duration
	for round := range opt.Warmup + opt.GCs {
		for k := range modes {
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("gcsim: compare interrupted: %w", err)
			}
			i := (round + k) % len(modes)
			if err := s.Mutate(); err != nil {
				return res, err
			}
			rec, err := s.Collect(modes[i])
			if err != nil {
				return res, err
			}
			if round < opt.Warmup {
				continue
			}
			paused += rec.Pause
			res.Modes[i].Records = append(res.Modes[i].Records, rec)
			if opt.Progress != nil {
				opt.Progress(modes[i], round-opt.Warmup+1, opt.GCs)
			}
		}
	}
	res.MajorGCs = s.MajorGCs()
	if err := s.Close(); err != nil {
		return res, err
	}
	res.Elapsed = time.Since(start)
	res.SimOverhead = res.Elapsed - paused
	return res, nil
}
