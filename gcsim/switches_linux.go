package gcsim

import (
	"bytes"
	"strconv"

	"golang.org/x/sys/unix"
)

// switchReader reads the context switches of a set of threads from
// /proc/self/task/TID/status without allocating: it opens each file once
// and re-reads it from offset 0 (a proc file is generated afresh on each
// such read) into one buffer, so that reading between collections leaves
// the Go heap, and the host collector, alone. close releases the files.
type switchReader struct {
	fds  []int
	buf  []byte // one status file: about 1.5 KiB
	fail bool   // a file did not open: every read reports false
}

func newSwitchReader(tids []int) *switchReader {
	r := &switchReader{buf: make([]byte, 8<<10)}
	for _, tid := range tids {
		fd, err := unix.Open("/proc/self/task/"+strconv.Itoa(tid)+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			r.fail = true
			continue
		}
		r.fds = append(r.fds, fd)
	}
	return r
}

// read returns the threads' context switches so far, voluntary (the
// thread blocked: a sleep on a futex) and involuntary (the kernel took its
// CPU: a preemption), summed, and false if a read failed.
func (r *switchReader) read() (vol, invol uint64, ok bool) {
	if r.fail {
		return 0, 0, false
	}
	for _, fd := range r.fds {
		n, err := unix.Pread(fd, r.buf, 0)
		if err != nil || n <= 0 || n == len(r.buf) {
			return 0, 0, false
		}
		v, i, ok := switchesIn(r.buf[:n])
		if !ok {
			return 0, 0, false
		}
		vol += v
		invol += i
	}
	return vol, invol, true
}

// close closes the reader's files.
func (r *switchReader) close() {
	for _, fd := range r.fds {
		unix.Close(fd)
	}
	r.fds, r.fail = nil, true
}

// The status file's lines with the counts; the newline keeps
// "voluntary_ctxt_switches:" from matching inside its nonvoluntary twin.
var (
	voluntaryKey    = []byte("\nvoluntary_ctxt_switches:")
	nonvoluntaryKey = []byte("\nnonvoluntary_ctxt_switches:")
)

// switchesIn parses a status file's voluntary and nonvoluntary context
// switches.
func switchesIn(status []byte) (vol, invol uint64, ok bool) {
	vol, okV := statusField(status, voluntaryKey)
	invol, okI := statusField(status, nonvoluntaryKey)
	return vol, invol, okV && okI
}

// statusField parses the decimal number after key (which starts a line)
// in a status file.
func statusField(b, key []byte) (uint64, bool) {
	i := bytes.Index(b, key)
	if i < 0 {
		return 0, false
	}
	b = bytes.TrimLeft(b[i+len(key):], " \t")
	var v uint64
	digits := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		if v > (1<<64-1-9)/10 {
			return 0, false // more than a uint64 holds
		}
		v = v*10 + uint64(c-'0')
		digits++
	}
	if digits == 0 || (digits < len(b) && b[digits] != '\n') {
		return 0, false
	}
	return v, true
}
