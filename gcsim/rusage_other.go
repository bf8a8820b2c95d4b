//go:build !linux

package gcsim

// rusage is what involuntarySwitches would read into.
type rusage struct{}

// involuntarySwitches reports false: only Linux counts a thread's own
// context switches (RUSAGE_THREAD).
func involuntarySwitches(*rusage) (uint64, bool) { return 0, false }
