//go:build !linux

package gcsim

import "time"

// threadReader would read threads' context switches and times; only
// Linux's /proc gives another thread's.
type threadReader struct{}

// threadCounts are what a threadReader reads: nothing here.
type threadCounts struct {
	vol, invol                    uint64
	cpu, wait                     time.Duration
	process, self                 time.Duration
	switchesOK, timesOK, clocksOK bool
}

func newThreadReader([]int) *threadReader { return &threadReader{} }

// read reports nothing read: not counted here.
func (*threadReader) read() threadCounts { return threadCounts{} }

func (*threadReader) close() {}
