package trace

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/gcbench/gcbench/internal/parsetest"
)

func FuzzParseMemory(f *testing.F) {
	parsetest.Fuzz(f, ParseMemory, ErrInvalidOptions, []Memory{OffHeap, GoHeap}, "off-heap", "go-heap", "heap", "OffHeap")
}

func FuzzParseLockKind(f *testing.F) {
	parsetest.Fuzz(f, ParseLockKind, ErrInvalidOptions, []LockKind{MutexLock, SpinLock}, "Mutex", "spinlock")
}

func FuzzParseReaderKind(f *testing.F) {
	parsetest.Fuzz(f, ParseReaderKind, ErrInvalidOptions, []ReaderKind{BatchReader, EventPipeReader}, "EventPipe", "event-pipe")
}

func FuzzParsePolicy(f *testing.F) {
	parsetest.Fuzz(f, ParsePolicy, ErrInvalidOptions, []Policy{Lockless, Locked}, "lock", "LOCKED")
}

// TestNamesRoundTripThroughJSON: the option types encode as their names
// and decode back.
func TestNamesRoundTripThroughJSON(t *testing.T) {
	in := struct {
		Policies []Policy
		Memory   Memory
		Lock     LockKind
		Reader   ReaderKind
	}{[]Policy{Lockless, Locked}, GoHeap, SpinLock, EventPipeReader}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"Policies":["lockless","locked"],"Memory":"goheap","Lock":"spin","Reader":"eventpipe"}`; string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
	out := in
	out.Policies, out.Memory, out.Lock, out.Reader = nil, OffHeap, MutexLock, BatchReader
	if err := json.Unmarshal(b, &out); err != nil || !slices.Equal(out.Policies, in.Policies) || out.Memory != in.Memory || out.Lock != in.Lock || out.Reader != in.Reader {
		t.Fatalf("decoded %+v, %v; want %+v", out, err, in)
	}
	if err := json.Unmarshal([]byte(`{"Lock":"futex"}`), &out); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("an unknown name: %v, want ErrInvalidOptions", err)
	}
}

// TestUnknownValuesHaveNoName: a value outside the constants does not
// marshal as a known name (a LockKind(7) wrote "mutex", which reads back
// as a valid option).
func TestUnknownValuesHaveNoName(t *testing.T) {
	for _, v := range []interface{ MarshalText() ([]byte, error) }{Policy(7), Memory(7), LockKind(7), ReaderKind(7)} {
		if b, err := v.MarshalText(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%v: %q, %v; want an error wrapping ErrInvalidOptions", v, b, err)
		}
	}
	if got := LockKind(7).String(); got != "LockKind(7)" {
		t.Errorf("LockKind(7).String() = %q", got)
	}
}

func TestNames(t *testing.T) {
	parsetest.Names(t, ParseMemory, MemoryNames(), OffHeap, GoHeap)
	parsetest.Names(t, ParseLockKind, LockKindNames(), MutexLock, SpinLock)
	parsetest.Names(t, ParseReaderKind, ReaderKindNames(), BatchReader, EventPipeReader)
	parsetest.Names(t, ParsePolicy, PolicyNames(), Lockless, Locked)
}
