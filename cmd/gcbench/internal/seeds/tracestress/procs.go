package tracestress

// Procs is the GOMAXPROCS a run with this many writers wants: a P for
// every writer thread and the reader's, plus one. Writers and reader are
// goroutines locked to OS threads, and a locked thread still needs a P to
// run Go code: with fewer Ps than threads, a thread the kernel wakes may
// first wait for a P, and the Go runtime, not the kernel, would decide
// who runs.
func Procs(writers int) int { return writers + 2 }
