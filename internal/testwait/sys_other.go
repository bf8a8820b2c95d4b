//go:build !linux

package testwait

import (
	"errors"
	"syscall"
)

// dieWithParent does nothing where there is no Pdeathsig: a child outlives
// a test binary that dies at its -timeout panic.
func dieWithParent(*syscall.SysProcAttr) {}

// awaitExit cannot wait without reaping here, so what a child leaves in
// its group is killed only at a bound or at cleanup.
func awaitExit(int) error { return errors.ErrUnsupported }

// ignoredSignals reports none where the kernel's mask cannot be read:
// signal.Notify is documented to undo an inherited ignore.
func ignoredSignals() (uint64, error) { return 0, nil }
