package gcsim

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/gcbench/gcbench/analysis/report"
	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/workerpool"
)

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
	// automatic choice (Procs).
	GOMAXPROCS int
	// LockCollector runs the collections on one OS thread, as SGen's
	// collector is one thread.
	LockCollector bool
}

// DefaultExperiment is the seed experiment: DefaultConfig, compared in
// Serial, PerJob and Batch, 1500 timed and 50 warm-up collections per
// mode, GOMAXPROCS chosen automatically, the collections on any thread.
func DefaultExperiment() Experiment {
	return Experiment{Config: DefaultConfig(), Modes: []Mode{Serial, PerJob, Batch}, GCs: 1500, Warmup: 50}
}

// MaxCollections bounds an Experiment's GCs and Warmup: far more
// collections than a run can do, small enough that counts times modes
// never overflow an int.
const MaxCollections = 1 << 40

// MaxGOMAXPROCS bounds an Experiment's GOMAXPROCS: one P per worker of the
// largest pool plus one for the collecting goroutine. More only makes the
// runtime start threads it cannot use (and 2^31 is a fatal error in the
// runtime itself).
const MaxGOMAXPROCS = workerpool.MaxWorkers + 1

// Validate reports the first of e's settings that a run would refuse, as
// a *setting.Error naming its key: Config's (Config.Validate, the pool's
// combination of backend, wake policy and mutex kind included), then at
// least one mode and none twice (a report has a column per mode), GCs in
// 1..MaxCollections, Warmup in 0..MaxCollections and GOMAXPROCS in
// 0..MaxGOMAXPROCS. It is the one check of an experiment, wherever it
// comes from (flags, a saved report, a sweep's point); like
// Config.Validate it depends on e alone (see CheckHerd and
// heap.Config.CheckMemory for the machine's limits).
func (e Experiment) Validate() error {
	if err := e.Config.Validate(); err != nil {
		return err
	}
	if err := validateModes(e.Modes, false); err != nil {
		return err
	}
	switch {
	case e.GCs < 1 || e.GCs > MaxCollections:
		return badValue(KeyGCs, e.GCs, fmt.Sprintf("1..%d", MaxCollections))
	case e.Warmup < 0 || e.Warmup > MaxCollections:
		return badValue(KeyWarmup, e.Warmup, fmt.Sprintf("0..%d", MaxCollections))
	case e.GOMAXPROCS < 0 || e.GOMAXPROCS > MaxGOMAXPROCS:
		return badValue(KeyGOMAXPROCS, e.GOMAXPROCS, fmt.Sprintf("0..%d (0: automatic)", MaxGOMAXPROCS))
	}
	return nil
}

// validateModes refuses an unknown mode, one given twice, and, unless
// emptyOK (CompareOptions' "every mode"), an empty list.
func validateModes(modes []Mode, emptyOK bool) error {
	if len(modes) == 0 && !emptyOK {
		return badValue(KeyModes, "[]", "at least one of "+modeNames.Want())
	}
	for i, m := range modes {
		if !modeNames.Valid(m) {
			return badValue(KeyModes, m, modeNames.Want())
		}
		if slices.Contains(modes[:i], m) {
			return badValue(KeyModes, strings.Join(Experiment{Modes: modes}.ModeNames(), ","), "each mode once")
		}
	}
	return nil
}

// Options returns the CompareOptions of e (without Progress).
func (e Experiment) Options() CompareOptions {
	return CompareOptions{Modes: e.Modes, GCs: e.GCs, Warmup: e.Warmup}
}

// Run runs e's comparison — Compare of e.Config with e.Options and
// progress as its Progress — on one OS thread locked for it when
// LockCollector is set, and returns what Compare does. It leaves
// GOMAXPROCS, which is the process's, to the caller (Procs).
func (e Experiment) Run(ctx context.Context, progress func(mode Mode, done, total int)) (*Result, error) {
	if e.LockCollector {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	opt := e.Options()
	opt.Progress = progress
	return Compare(ctx, e.Config, opt)
}

// Procs is the GOMAXPROCS e runs at: e.GOMAXPROCS if set, else, when a
// mode other than Serial runs on the Threads or Native backend, Workers+1
// (such a worker needs a P while it runs; at fewer, the pool measures the
// Go runtime's P hand-off rather than the kernel's wakes:
// docs/methodology.md), else the runtime's current value.
func (e Experiment) Procs() int {
	if e.GOMAXPROCS > 0 {
		return e.GOMAXPROCS
	}
	if e.Config.Backend != workerpool.Goroutines && slices.ContainsFunc(e.Modes, func(m Mode) bool { return m != Serial }) {
		return e.Config.Workers + 1
	}
	return runtime.GOMAXPROCS(0)
}

// ModeNames are the names of e's modes, in column order: the modes of the
// runs of its report.
func (e Experiment) ModeNames() []string {
	names := make([]string, len(e.Modes))
	for i, m := range e.Modes {
		names[i] = m.String()
	}
	return names
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

// ReportConfig returns e's settings as a report shows them, sorted by key
// (the order reports have always shown, which their readers — the
// README, the results pages, scripts that grep a config line — expect):
// each setting's key and its value as text — a size as
// bytesize spells it ("2.5GiB"), an enumeration by name, the modes joined
// by commas (report.ConfigModes' form), a number, true or false. Reports
// showed a few settings otherwise before they saved typed ones, and a new
// report must merge with an older one of the same experiment, so these
// keep that form: GOMAXPROCS 0 shows as "auto", Mutex only on the Native
// backend, LockCollector as collector=locked-thread and only when set,
// KernelSnapshot (newer than those reports) only when set,
// and Roots and the mutator not at all (they are in the typed settings).
func (e Experiment) ReportConfig() report.Config {
	var c report.Config
	for _, f := range e.fields() {
		if p, ok := e.shown(f); ok {
			c = append(c, p)
		}
	}
	slices.SortFunc(c, func(a, b report.Pair) int { return strings.Compare(a.Key, b.Key) })
	return c
}

// The pair ReportConfig shows for LockCollector when it is set.
const (
	configCollector = "collector"
	lockedCollector = "locked-thread"
)

// shown is the pair ReportConfig shows for e's setting f, ok false for
// one it does not show.
func (e Experiment) shown(f field) (report.Pair, bool) {
	switch f.key {
	case heap.KeyRoots, KeyMutator:
		return report.Pair{}, false
	case KeyLockCollector:
		return report.Pair{Key: configCollector, Value: lockedCollector}, e.LockCollector
	case KeyKernelSnapshot:
		return report.Pair{Key: f.key, Value: "true"}, e.Config.KernelSnapshot
	case KeyGOMAXPROCS:
		if e.GOMAXPROCS == 0 {
			return report.Pair{Key: f.key, Value: "auto"}, true
		}
	}
	return report.Pair{Key: f.key, Value: text(f.v)}, f.key != KeyMutex || e.Config.Backend.HasMutexKinds()
}

// text is the value of a field (a pointer) as text: its String, its
// number or true/false, or a list's elements joined by commas.
func text(v any) string {
	if modes, ok := v.(*[]Mode); ok {
		return strings.Join(Experiment{Modes: *modes}.ModeNames(), ",")
	}
	return fmt.Sprint(reflect.ValueOf(v).Elem()) // fmt uses the value's String method if it has one
}

// diff returns the first of e's settings, in field order, whose value
// differs in o, with both values as text; a mutator setting by its path
// ("mutator.lifetime"). ok is false when e and o are the same experiment
// (Config.Trace is no setting).
func (e Experiment) diff(o Experiment) (key, mine, theirs string, ok bool) {
	return diffFields("", e.fields(), o.fields())
}

func diffFields(prefix string, a, b []field) (key, va, vb string, ok bool) {
	for i := range a {
		x, y := reflect.ValueOf(a[i].v).Elem().Interface(), reflect.ValueOf(b[i].v).Elem().Interface()
		if reflect.DeepEqual(x, y) {
			continue
		}
		if mx, isMutator := x.(MutatorConfig); isMutator {
			my := y.(MutatorConfig)
			return diffFields(prefix+a[i].key+".", mx.fields(), my.fields())
		}
		return prefix + a[i].key, text(a[i].v), text(b[i].v), true
	}
	return "", "", "", false
}
