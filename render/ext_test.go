package render

import "testing"

func TestExt(t *testing.T) {
	for f, want := range map[Format]string{Text: ".txt", Markdown: ".md", CSV: ".csv", JSON: ".json", Bench: ".txt", Format(99): ""} {
		if got := f.Ext(); got != want {
			t.Errorf("%v.Ext() = %q, want %q", f, got, want)
		}
	}
}
