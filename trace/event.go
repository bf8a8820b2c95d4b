package trace

import (
	"strconv"
	"time"
)

// Kind says what an event records. Its meaning is the caller's: trace
// stores it with the event, gives it back to the reader and lets a
// ChromeMapping interpret it. Zero is never a valid kind. Trace defines
// KindStress for itself; the packages that write events assign their own
// kinds from 2 up to KindUser−1 and document them with their file's
// contents, and kinds from KindUser up are left to ad-hoc programs.
type Kind uint16

// KindStress marks a filler event of a load test of a Session: its
// payload is the load and its Arg is the test's to choose.
const KindStress Kind = 1

// KindUser is the first kind left to ad-hoc programs: trace and the
// packages that define kinds never assign it or any kind above it, and
// String names them "user+N".
const KindUser Kind = 1024

// String returns "stress" for KindStress, "user+N" for KindUser+N and
// "kind(N)" for any other kind, whose name only the package that wrote it
// knows.
func (k Kind) String() string {
	return string(k.appendName(nil))
}

// appendName appends String's result to b without allocating (the Chrome
// export names every event).
func (k Kind) appendName(b []byte) []byte {
	switch {
	case k == KindStress:
		return append(b, "stress"...)
	case k >= KindUser:
		return strconv.AppendUint(append(b, "user+"...), uint64(k-KindUser), 10)
	default:
		return append(strconv.AppendUint(append(b, "kind("...), uint64(k), 10), ')')
	}
}

// Event is one event as read back from a trace.
type Event struct {
	Writer  uint32        // the writer that recorded it
	Seq     uint64        // the writer's sequence number
	Time    time.Duration // since the session start
	Kind    Kind          // what it records, in its writer's terms
	Arg     uint64        // the writer's argument; its meaning depends on Kind
	Payload []byte        // valid until the Reader's next call to Next
}
