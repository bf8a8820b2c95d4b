package trace

import (
	"slices"
	"testing"
)

func TestSummaryKindsAndLostShare(t *testing.T) {
	s := Summary{Events: 30, Lost: 10, ByKind: map[Kind]uint64{3: 10, 1: 15, 2: 5}}
	if got := s.Kinds(); !slices.Equal(got, []Kind{1, 2, 3}) {
		t.Errorf("Kinds() = %v, want 1, 2, 3", got)
	}
	if got := s.LostShare(); got != 25 {
		t.Errorf("LostShare() = %v, want 25 (10 of 40)", got)
	}
	if got := (Summary{}).LostShare(); got != 0 {
		t.Errorf("an empty trace's LostShare() = %v, want 0", got)
	}
}
