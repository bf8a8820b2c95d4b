package render

import "testing"

func TestExt(t *testing.T) {
	for f, want := range map[Format]string{Text: ".txt", Markdown: ".md", CSV: ".csv", JSON: ".json", Bench: ".txt", Format(99): ""} {
		if got := f.Ext(); got != want {
			t.Errorf("%v.Ext() = %q, want %q", f, got, want)
		}
	}
}

func TestFormatOfFile(t *testing.T) {
	for name, want := range map[string]Format{"a.JSON": JSON, "b.csv": CSV, "c.md": Markdown, "c.markdown": Markdown, "d": Text, "e.txt": Text} {
		if got := FormatOfFile(name); got != want {
			t.Errorf("FormatOfFile(%q) = %v", name, got)
		}
	}
	for _, f := range []Format{Markdown, CSV, JSON, Text} {
		if got := FormatOfFile("x" + f.Ext()); got != f {
			t.Errorf("FormatOfFile(%q) = %v, want %v", "x"+f.Ext(), got, f)
		}
	}
}

func TestPlotFormatOfFile(t *testing.T) {
	for in, want := range map[string]string{"p.PNG": "png", "dir.v2/p.svg": "svg", "p.gif": "", "p": "", "png": ""} {
		if got := PlotFormatOfFile(in); got != want {
			t.Errorf("PlotFormatOfFile(%q) = %q, want %q", in, got, want)
		}
	}
}
