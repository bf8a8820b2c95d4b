package render

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestFormatNames: a Format prints and marshals as its name, and one
// without a name prints as Format(n) and refuses to marshal.
func TestFormatNames(t *testing.T) {
	if got := Bench.String(); got != "bench" {
		t.Errorf("Bench = %q", got)
	}
	if b, err := json.Marshal(Markdown); err != nil || string(b) != `"markdown"` {
		t.Errorf("json.Marshal(Markdown) = %s, %v", b, err)
	}
	var f Format
	if err := json.Unmarshal([]byte(`"CSV"`), &f); err != nil || f != CSV {
		t.Errorf(`json.Unmarshal("CSV") = %v, %v`, f, err)
	}
	if got := Format(9).String(); got != "Format(9)" {
		t.Errorf("Format(9) = %q", got)
	}
	if _, err := json.Marshal(Format(9)); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("json.Marshal(Format(9)) = %v, want ErrInvalidInput", err)
	}
}
