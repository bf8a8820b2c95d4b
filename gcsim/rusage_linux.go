package gcsim

import "syscall"

// rusageThread is RUSAGE_THREAD (getrusage(2); Linux since 2.6.26): the
// calling thread's usage.
const rusageThread = 0x1

// rusage is what involuntarySwitches reads into.
type rusage = syscall.Rusage

// involuntarySwitches returns the calling thread's involuntary context
// switches so far (ru_nivcsw), reading into ru, and false if getrusage
// failed. It allocates nothing.
func involuntarySwitches(ru *rusage) (uint64, bool) {
	if err := syscall.Getrusage(rusageThread, ru); err != nil || ru.Nivcsw < 0 {
		return 0, false
	}
	return uint64(ru.Nivcsw), true
}
