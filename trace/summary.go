package trace

import (
	"io"
	"maps"
	"slices"
	"time"
)

// Summary describes a whole trace: what `gcbench trace FILE` prints.
type Summary struct {
	Header  Header
	Events  uint64          // events read
	Lost    uint64          // events lost (dropped by writers); a lower bound if Truncated
	ByKind  map[Kind]uint64 // events read per kind
	Writers []WriterCounts  // see WriterCounts for their meaning if Truncated
	First   time.Duration   // time of the earliest event
	Last    time.Duration   // time of the latest event
	Payload uint64          // payload bytes read
	// Truncated is true when the trace has no end block (its session did
	// not finish): everything above covers only its complete blocks, and
	// what the writers attempted after them is unknown.
	Truncated bool
	// TruncatedAt is the byte offset where the trace was cut, which is the
	// end of its last complete block; 0 unless Truncated.
	TruncatedAt int64
}

// Summarize reads the trace to its end. A truncated trace is summarized
// as far as it can be read, with Truncated set, and no error; an error
// (corruption, I/O) is returned with the summary of the events before it.
func Summarize(r *Reader) (Summary, error) {
	s := Summary{Header: r.Header(), ByKind: map[Kind]uint64{}}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, err
		}
		if s.Events == 0 || ev.Time < s.First {
			s.First = ev.Time
		}
		if ev.Time > s.Last {
			s.Last = ev.Time
		}
		s.Events++
		s.ByKind[ev.Kind]++
		s.Payload += uint64(len(ev.Payload))
	}
	s.Writers = r.Counts()
	_, s.Lost = r.Totals()
	if r.Truncated() {
		s.Truncated, s.TruncatedAt = true, r.cutAt
	}
	return s, nil
}

// Kinds are the kinds s counted events of, in ascending order.
func (s Summary) Kinds() []Kind {
	return slices.Sorted(maps.Keys(s.ByKind))
}

// LostShare is the share (%) of the trace's events that were lost, of
// those read and lost; 0 for a trace without either.
func (s Summary) LostShare() float64 {
	if s.Events == 0 && s.Lost == 0 {
		return 0
	}
	return 100 * float64(s.Lost) / (float64(s.Events) + float64(s.Lost))
}
