package gcsim

import "time"

// threadCounts are a set of threads' counts so far, summed: the context
// switches, voluntary (the thread blocked: a sleep on a futex) and
// involuntary (the kernel took its CPU: a preemption), and the CPU time
// and the wait for a CPU while runnable; beside them the whole process's
// CPU time and the reading thread's. switchesOK, timesOK and clocksOK say
// which were read.
type threadCounts struct {
	vol, invol                    uint64
	cpu, wait                     time.Duration
	process, self                 time.Duration
	switchesOK, timesOK, clocksOK bool
}
