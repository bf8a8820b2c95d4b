package gcsim

import (
	"bytes"
	"strconv"

	"golang.org/x/sys/unix"
)

// threadSwitches returns the context switches of the threads tids so far,
// voluntary (the thread blocked: a sleep on a futex) and involuntary (the
// kernel took its CPU: a preemption), summed from each one's
// /proc/self/task/TID/status, and false if a read failed. buf holds one
// file (about 1.5 KiB).
func threadSwitches(tids []int, buf []byte) (vol, invol uint64, ok bool) {
	for _, tid := range tids {
		v, i, ok := readSwitches("/proc/self/task/"+strconv.Itoa(tid)+"/status", buf)
		if !ok {
			return 0, 0, false
		}
		vol += v
		invol += i
	}
	return vol, invol, true
}

// readSwitches reads one status file.
func readSwitches(path string, buf []byte) (vol, invol uint64, ok bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 || n == len(buf) {
		return 0, 0, false
	}
	vol, okV := statusField(buf[:n], "\nvoluntary_ctxt_switches:")
	invol, okI := statusField(buf[:n], "\nnonvoluntary_ctxt_switches:")
	return vol, invol, okV && okI
}

// statusField parses the number after key (which starts a line) in a
// status file.
func statusField(b []byte, key string) (uint64, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0, false
	}
	b = bytes.TrimLeft(b[i+len(key):], " \t")
	end := bytes.IndexByte(b, '\n')
	if end < 0 {
		end = len(b)
	}
	v, err := strconv.ParseUint(string(b[:end]), 10, 64)
	return v, err == nil
}
