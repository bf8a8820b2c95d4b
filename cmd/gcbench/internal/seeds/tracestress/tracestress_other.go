//go:build !linux

package tracestress

import "time"

// threadCPUOf is 0: the reader's CPU share is not measured here.
func threadCPUOf(int) time.Duration { return 0 }
