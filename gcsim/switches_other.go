//go:build !linux

package gcsim

// threadSwitches reports false: only Linux's /proc gives another thread's
// context switches.
func threadSwitches([]int, []byte) (vol, invol uint64, ok bool) { return 0, 0, false }
