package gcsim

import (
	"bytes"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// threadReader reads what the kernel counts of a set of threads: their
// context switches (/proc/self/task/TID/status) and their CPU time and
// time spent runnable but waiting for a CPU (/proc/self/task/TID/schedstat,
// whose second field is the scheduler's run_delay). It reads without
// allocating: it opens each file once and re-reads it from offset 0 (a
// proc file is generated afresh on each such read) into one buffer, so
// that reading between collections leaves the Go heap, and the host
// collector, alone. close releases the files.
type threadReader struct {
	status, sched []int
	buf           []byte // one status file: about 1.5 KiB
	// A file did not open: every read reports the counts it holds as not
	// read. A kernel without CONFIG_SCHED_INFO has no schedstat file.
	noStatus, noSched bool
}

func newThreadReader(tids []int) *threadReader {
	r := &threadReader{buf: make([]byte, 8<<10)}
	open := func(tid int, file string) (int, bool) {
		fd, err := unix.Open("/proc/self/task/"+strconv.Itoa(tid)+"/"+file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		return fd, err == nil
	}
	for _, tid := range tids {
		if fd, ok := open(tid, "status"); ok {
			r.status = append(r.status, fd)
		} else {
			r.noStatus = true
		}
		if fd, ok := open(tid, "schedstat"); ok {
			r.sched = append(r.sched, fd)
		} else {
			r.noSched = true
		}
	}
	return r
}

// read returns the threads' counts so far, and the process's and the
// calling thread's CPU clocks; a count whose file failed to read, or to
// parse, is marked not read.
func (r *threadReader) read() threadCounts {
	var c threadCounts
	c.process, c.self, c.clocksOK = cpuClocks()
	c.switchesOK = !r.noStatus && r.each(r.status, func(b []byte) bool {
		v, i, ok := switchesIn(b)
		c.vol, c.invol = c.vol+v, c.invol+i
		return ok
	})
	c.timesOK = !r.noSched && r.each(r.sched, func(b []byte) bool {
		cpu, wait, ok := schedTimesIn(b)
		c.cpu, c.wait = c.cpu+cpu, c.wait+wait
		return ok
	})
	return c
}

// cpuClocks reads the process's CPU clock (every thread's time on a CPU)
// and the calling thread's.
func cpuClocks() (process, self time.Duration, ok bool) {
	var p, t unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &p) != nil || unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &t) != nil {
		return 0, 0, false
	}
	return time.Duration(p.Nano()), time.Duration(t.Nano()), true
}

// each reads every file of fds into the buffer and hands it to parse; it
// reports false at the first file that fails to read or parse.
func (r *threadReader) each(fds []int, parse func([]byte) bool) bool {
	for _, fd := range fds {
		n, err := unix.Pread(fd, r.buf, 0)
		if err != nil || n <= 0 || n == len(r.buf) || !parse(r.buf[:n]) {
			return false
		}
	}
	return true
}

// close closes the reader's files.
func (r *threadReader) close() {
	for _, fd := range append(r.status, r.sched...) {
		unix.Close(fd)
	}
	r.status, r.sched, r.noStatus, r.noSched = nil, nil, true, true
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
	v, rest, ok := decimal(bytes.TrimLeft(b[i+len(key):], " \t"))
	return v, ok && (len(rest) == 0 || rest[0] == '\n')
}

// schedTimesIn parses a schedstat file, "cpu_ns run_delay_ns timeslices\n"
// (the kernel's Documentation/scheduler/sched-stats.rst): the thread's
// time on a CPU and its time runnable on a run queue, waiting for one.
func schedTimesIn(b []byte) (cpu, wait time.Duration, ok bool) {
	var f [3]uint64
	for i := range f {
		v, rest, ok := decimal(b)
		sep := byte(' ')
		if i == len(f)-1 {
			sep = '\n'
		}
		if !ok || len(rest) == 0 || rest[0] != sep || v > 1<<63-1 {
			return 0, 0, false
		}
		f[i], b = v, rest[1:]
	}
	return time.Duration(f[0]), time.Duration(f[1]), len(b) == 0
}

// decimal parses the unsigned decimal number b starts with and returns
// the rest; false if b starts with no digit or the number overflows.
func decimal(b []byte) (v uint64, rest []byte, ok bool) {
	digits := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		if v > (1<<64-1-9)/10 {
			return 0, nil, false // more than a uint64 holds
		}
		v = v*10 + uint64(c-'0')
		digits++
	}
	return v, b[digits:], digits > 0
}
