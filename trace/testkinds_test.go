package trace

import "fmt"

// Kinds the tests write, standing for a caller's: trace gives them no
// meaning, and testTracks lays them out in the Chrome export.
const (
	kindBegin Kind = 2 + iota // opens a "span" slice on track Arg of process 1
	kindEnd                   // closes the innermost "span" of track Arg
	kindMark                  // an instant on track Arg of process 1, Arg exported as "n"
	kindOther                 // a kind testTracks does not know
)

// numKinds is one past the last kind the tests name: session_test.go
// writes kinds 1 to numKinds−1.
const numKinds = kindOther + 1

// testTracks is a caller's ChromeMapping: spans and marks on numbered
// tracks of process 1, every other kind on its writer's track in process 2.
type testTracks struct{}

var _ ChromeMapping = testTracks{}

func (testTracks) Place(ev Event) ChromePlace {
	tr := ChromeTrack{PID: 1, TID: int64(ev.Arg)}
	switch ev.Kind {
	case kindBegin:
		return ChromePlace{Track: tr, Phase: ChromeBegin}
	case kindEnd:
		return ChromePlace{Track: tr, Phase: ChromeEnd}
	case kindMark:
		return ChromePlace{Track: tr, Phase: ChromeInstant, ArgName: "n"}
	}
	return WriterTracks{PID: 2}.Place(ev)
}

func (testTracks) AppendName(b []byte, ev Event) []byte {
	switch ev.Kind {
	case kindBegin, kindEnd:
		return append(b, "span"...)
	case kindMark:
		return append(b, "mark"...)
	}
	return WriterTracks{}.AppendName(b, ev)
}

func (testTracks) ProcessName(pid int) string {
	if pid == 1 {
		return "tracks"
	}
	return WriterTracks{}.ProcessName(pid)
}

func (testTracks) ThreadName(tr ChromeTrack) string {
	if tr.PID == 1 {
		return fmt.Sprintf("track %d", tr.TID)
	}
	return WriterTracks{}.ThreadName(tr)
}
