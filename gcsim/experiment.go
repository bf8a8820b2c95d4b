package gcsim

// KeyGOMAXPROCS and KeyLockCollector are the keys of Experiment's settings
// for the host's side of a run.
const (
	KeyGOMAXPROCS    = "gomaxprocs"
	KeyLockCollector = "lock_collector"
)

// An Experiment is a comparison as a report saves it and a front end
// reruns it: the simulation (Config), the settings of CompareOptions, and
// how the host ran the collections. Its JSON is one flat object of the
// settings' keys — Config's, then "modes", "gcs", "warmup", "gomaxprocs"
// and "lock_collector" — decoded as strictly as Config's.
type Experiment struct {
	Config Config
	// Modes, GCs and Warmup are CompareOptions' (Options).
	Modes       []Mode
	GCs, Warmup int
	// GOMAXPROCS is the value the front end set for the run; 0 is its
	// automatic choice (Workers+1 when Threads or Native workers run, see
	// the package documentation).
	GOMAXPROCS int
	// LockCollector runs the collections on one OS thread, as SGen's
	// collector is one thread.
	LockCollector bool
}

// Options returns the CompareOptions of e (without Progress).
func (e Experiment) Options() CompareOptions {
	return CompareOptions{Modes: e.Modes, GCs: e.GCs, Warmup: e.Warmup}
}

// MarshalJSON encodes e's settings as one object, in a fixed order.
func (e Experiment) MarshalJSON() ([]byte, error) { return marshalFields(e.fields()) }

// UnmarshalJSON sets the settings the object names, refusing an unknown
// key or a bad value with a *setting.Error naming it; absent keys keep
// their values.
func (e *Experiment) UnmarshalJSON(data []byte) error { return unmarshalFields(data, e.fields()) }

func (e *Experiment) fields() []field {
	return append(e.Config.fields(),
		field{KeyModes, &e.Modes, "a list of " + modeNames.Want()},
		field{KeyGCs, &e.GCs, wantInt},
		field{KeyWarmup, &e.Warmup, wantInt},
		field{KeyGOMAXPROCS, &e.GOMAXPROCS, "a whole number (0: automatic)"},
		field{KeyLockCollector, &e.LockCollector, wantBool},
	)
}
