package gcsim

import (
	"runtime"
	"strconv"
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

// TestSwitchReaderCountsASleep: a thread that sleeps in the kernel has one
// more voluntary context switch at least, as the reader reads it from
// /proc; the reads allocate nothing; a thread that does not exist, and a
// closed reader, read as not counted.
func TestSwitchReaderCountsASleep(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newSwitchReader([]int{unix.Gettid()})
	before, _, ok := r.read()
	require.True(t, ok)
	require.NoError(t, unix.Nanosleep(&unix.Timespec{Nsec: int64(2 * time.Millisecond)}, nil))
	after, _, ok := r.read()
	require.True(t, ok)
	assert.GreaterOrEqual(t, after, before+1)

	assert.Zero(t, testing.AllocsPerRun(20, func() { r.read() }))

	gone := newSwitchReader([]int{unix.Gettid(), 1 << 30})
	_, _, ok = gone.read()
	assert.False(t, ok, "a thread that does not exist")
	gone.close()
	r.close()
	_, _, ok = r.read()
	assert.False(t, ok, "after close")
}
