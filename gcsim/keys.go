package gcsim

// The keys of the settings of Config and CompareOptions (package setting):
// the names a *setting.Error, a report's configuration and the flags give
// them. The heap's part keeps heap's keys (heap.KeyMajorHeap, heap.KeyLOS,
// heap.KeyNursery, heap.KeyRoots); a mutator setting's key is
// "mutator." and its name in MutatorConfig's JSON ("mutator.major_fill").
const (
	KeyWorkers = "workers"
	KeyBackend = "backend"
	KeyWake    = "wake"
	KeyMutex   = "mutex"
	KeySeed    = "seed"
	KeyVerify  = "verify"
	KeyMutator = "mutator"
	// KeyKernelSnapshot is Config.KernelSnapshot's.
	KeyKernelSnapshot = "kernel_snapshot"

	KeyModes  = "modes"
	KeyGCs    = "gcs"
	KeyWarmup = "warmup"
)
