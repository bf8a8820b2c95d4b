package gcsim

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A status file's tail as Linux writes it (proc(5)).
const statusTail = "Cpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n"

// TestSwitchesInParsesAStatusFile: both counts are read from their own
// lines (nonvoluntary's line does not count as voluntary's), and a file
// missing one, or holding something else there, is refused.
func TestSwitchesInParsesAStatusFile(t *testing.T) {
	vol, invol, ok := switchesIn([]byte("Name:\tgcbench\nState:\tS (sleeping)\n" + statusTail))
	require.True(t, ok)
	assert.Equal(t, uint64(1234), vol)
	assert.Equal(t, uint64(56), invol)

	for _, bad := range []string{
		"Name:\tgcbench\nnonvoluntary_ctxt_switches:\t56\n",
		"Name:\tx\nvoluntary_ctxt_switches:\t\nnonvoluntary_ctxt_switches:\t56\n",
		"Name:\tx\nvoluntary_ctxt_switches:\t12x\nnonvoluntary_ctxt_switches:\t56\n",
		"Name:\tx\nvoluntary_ctxt_switches:\t99999999999999999999\nnonvoluntary_ctxt_switches:\t56\n",
		"",
	} {
		_, _, ok := switchesIn([]byte(bad))
		assert.False(t, ok, "%q", bad)
	}
}

// FuzzSwitchesIn: whatever a status file holds, switchesIn never panics,
// and what it accepts it read from the file's own digits.
func FuzzSwitchesIn(f *testing.F) {
	for _, seed := range []string{statusTail, "", "\nvoluntary_ctxt_switches:", "\nvoluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t18446744073709551615"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vol, invol, ok := switchesIn(b)
		if !ok {
			return
		}
		assert.Contains(t, string(b), "voluntary_ctxt_switches:")
		assert.Contains(t, string(b), strconv.FormatUint(vol, 10))
		assert.Contains(t, string(b), strconv.FormatUint(invol, 10))
	})
}

// TestSchedTimesInParsesASchedstatFile: the first two of the three
// fields are the CPU time and the wait, in nanoseconds; anything else is
// refused.
func TestSchedTimesInParsesASchedstatFile(t *testing.T) {
	cpu, wait, ok := schedTimesIn([]byte("5023917 104208 12\n"))
	require.True(t, ok)
	assert.Equal(t, 5023917*time.Nanosecond, cpu)
	assert.Equal(t, 104208*time.Nanosecond, wait)

	for _, bad := range []string{
		"", "\n", "5023917 104208\n", "5023917 104208 12", "5023917  104208 12\n", "5023917 104208 12\n7",
		"x 104208 12\n", "5023917 -1 12\n", "99999999999999999999 1 2\n", "9223372036854775808 1 2\n",
	} {
		_, _, ok := schedTimesIn([]byte(bad))
		assert.False(t, ok, "%q", bad)
	}
}

// FuzzSchedTimesIn: whatever a schedstat file holds, schedTimesIn never
// panics, and what it accepts are the file's own first two numbers.
func FuzzSchedTimesIn(f *testing.F) {
	for _, seed := range []string{"5023917 104208 12\n", "", "1 2 3", "9223372036854775807 0 0\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cpu, wait, ok := schedTimesIn(b)
		if !ok {
			return
		}
		assert.True(t, strings.HasPrefix(string(b), strconv.FormatInt(int64(cpu), 10)+" "+strconv.FormatInt(int64(wait), 10)+" "), "%q", b)
		assert.True(t, strings.HasSuffix(string(b), "\n"))
	})
}

// TestThreadReaderCountsASleepAndCPU: a thread that sleeps in the kernel
// has one more voluntary context switch at least, and one that spins has
// more CPU time, as the reader reads them from /proc; the reads allocate
// nothing; a thread that does not exist, and a closed reader, read as not
// counted.
func TestThreadReaderCountsASleepAndCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newThreadReader([]int{unix.Gettid()})
	before := r.read()
	require.True(t, before.switchesOK)
	require.True(t, before.timesOK, "this kernel has no /proc/self/task/TID/schedstat")
	require.NoError(t, unix.Nanosleep(&unix.Timespec{Nsec: int64(2 * time.Millisecond)}, nil))
	for t0 := time.Now(); time.Since(t0) < 5*time.Millisecond; {
	}
	after := r.read()
	require.True(t, after.switchesOK)
	require.True(t, after.timesOK)
	assert.GreaterOrEqual(t, after.vol, before.vol+1)
	assert.Greater(t, after.cpu, before.cpu)
	assert.GreaterOrEqual(t, after.wait, before.wait)
	require.True(t, before.clocksOK && after.clocksOK)
	assert.Greater(t, after.self, before.self, "the spin ran on this thread")
	// The two clocks are read one after the other, so each difference
	// spans a slightly different interval: the process's holds the
	// thread's 5 ms of spinning, less at most the moments between reads.
	assert.GreaterOrEqual(t, after.process-before.process, after.self-before.self-10*time.Microsecond,
		"the process's clock holds this thread's")

	assert.Zero(t, testing.AllocsPerRun(20, func() { r.read() }))

	gone := newThreadReader([]int{unix.Gettid(), 1 << 30})
	c := gone.read()
	assert.False(t, c.switchesOK, "a thread that does not exist")
	assert.False(t, c.timesOK, "a thread that does not exist")
	gone.close()
	r.close()
	c = r.read()
	assert.False(t, c.switchesOK || c.timesOK, "after close")
}

// TestSetWorkerCountsSplitsTheCPU: the collector's CPU is its own clock's
// difference, the others' the process's less the collector's and the
// workers'; a difference that comes out negative (reads microseconds
// apart) is 0, and without the workers' times nothing is split.
func TestSetWorkerCountsSplitsTheCPU(t *testing.T) {
	before := threadCounts{cpu: 100, process: 1000, self: 400, timesOK: true, clocksOK: true}
	after := threadCounts{cpu: 150, process: 1100, self: 430, timesOK: true, clocksOK: true}
	var r Record
	r.setWorkerCounts(before, after)
	require.True(t, r.CPUSplitCounted)
	assert.Equal(t, time.Duration(30), r.CollectorCPU)
	assert.Equal(t, time.Duration(20), r.OtherCPU)

	after.process = 1070 // 70 of process CPU against 30 + 50
	r = Record{}
	r.setWorkerCounts(before, after)
	assert.Equal(t, time.Duration(0), r.OtherCPU)

	after.timesOK = false
	r = Record{}
	r.setWorkerCounts(before, after)
	assert.False(t, r.CPUSplitCounted)
}
