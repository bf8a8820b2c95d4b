package trace

import (
	"strconv"
	"time"
)

// Kind says what an event records. Kinds below KindUser are defined here;
// a program may use KindUser and above for its own events.
type Kind uint16

// Event kinds emitted by gcbench. Arg holds the worker index (two's
// complement, so jobs.Inline is ^uint64(0)) for worker events, the
// collection number for collection events and the job count for Enqueue.
const (
	_                   Kind = iota // zero is never a valid kind
	KindStress                      // trace-stress filler event; payload only
	KindCollectionStart             // a minor collection's pause began; Arg = collection number
	KindCollectionEnd               // the pause ended; Arg = collection number
	KindJobStart                    // a worker started a job; Arg = worker
	KindJobEnd                      // a worker finished a job; Arg = worker
	KindEnqueue                     // jobs were enqueued by one call; Arg = number of jobs
	KindWake                        // a parked worker woke up; Arg = worker
	KindFutileWake                  // a worker woke and found no runnable job; Arg = worker
	numKinds
)

// KindUser is the first kind free for a program's own events.
const KindUser Kind = 1024

var kindNames = [numKinds]string{
	KindStress:          "stress",
	KindCollectionStart: "collection-start",
	KindCollectionEnd:   "collection-end",
	KindJobStart:        "job-start",
	KindJobEnd:          "job-end",
	KindEnqueue:         "enqueue",
	KindWake:            "wake",
	KindFutileWake:      "futile-wake",
}

// String returns the kind's name, "user+N" for program-defined kinds and
// "kind(N)" for unassigned ones.
func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return string(k.appendName(nil))
}

// appendName appends String's result to b without allocating (the Chrome
// export names every event).
func (k Kind) appendName(b []byte) []byte {
	switch {
	case k > 0 && k < numKinds:
		return append(b, kindNames[k]...)
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
	Kind    Kind
	Arg     uint64
	Payload []byte // valid until the Reader's next call to Next
}
