package trace

import (
	"io"
	"time"
)

// Summary describes a whole trace: what `gcbench trace FILE` prints.
type Summary struct {
	Header  Header
	Events  uint64          // events read
	Lost    uint64          // events lost (dropped by writers)
	ByKind  map[Kind]uint64 // events read per kind
	Writers []WriterCounts
	First   time.Duration // time of the earliest event
	Last    time.Duration // time of the latest event
	Payload uint64        // payload bytes read
}

// Summarize reads the trace to its end.
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
	return s, nil
}
