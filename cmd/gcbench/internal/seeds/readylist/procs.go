package readylist

import "slices"

// Procs is the GOMAXPROCS a run of opt wants: a P for every producer
// thread of the largest run and the consumer's, plus one, so that the
// kernel, not the Go runtime, decides which thread runs (a locked thread
// the kernel wakes still needs a P to run Go code).
func Procs(opt Options) int {
	producers := opt.Producers
	if len(producers) == 0 {
		producers = DefaultProducers
	}
	return slices.Max(producers) + 2
}
