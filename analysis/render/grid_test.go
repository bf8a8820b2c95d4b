package render

import (
	"bytes"
	"errors"
	"testing"
)

func TestTableFormats(t *testing.T) {
	tab := &Table{
		Title:  "ready list | 2 CPUs",
		Facts:  []Fact{{Key: "config", Value: "events=10", Verbatim: true}, {Key: "host", Value: "vm|1"}},
		Header: [][]string{{"", "mpsc"}, {"threads", "events/ms"}},
		Rows:   [][]string{{"8", "1234"}, {"16", "7"}},
		Notes:  []string{"ratio = mpsc / mutex"},
	}
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{Text, "ready list | 2 CPUs\nconfig: events=10\nhost: vm|1\n\n" +
			"              mpsc\n" +
			"threads  events/ms\n" +
			"8             1234\n" +
			"16               7\n" +
			"\nratio = mpsc / mutex\n"},
		{Markdown, "### ready list \\| 2 CPUs\n\n- config: `events=10`\n- host: vm\\|1\n\n" +
			"| threads | mpsc events/ms |\n| --- | ---: |\n| 8 | 1234 |\n| 16 | 7 |\n\nratio = mpsc / mutex\n"},
		{CSV, "threads,mpsc events/ms\n8,1234\n16,7\n"},
	} {
		var b bytes.Buffer
		if err := tab.Write(&b, tc.f); err != nil {
			t.Fatalf("%v: %v", tc.f, err)
		}
		if b.String() != tc.want {
			t.Errorf("%v:\ngot:\n%q\nwant:\n%q", tc.f, b.String(), tc.want)
		}
	}
	if err := tab.Write(&bytes.Buffer{}, JSON); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("JSON: err = %v, want ErrInvalidInput", err)
	}
}

func TestTableReportsWriteErrors(t *testing.T) {
	tab := &Table{Header: [][]string{{"a"}}, Rows: [][]string{{"1"}}}
	for _, f := range []Format{Text, Markdown, CSV} {
		if err := tab.Write(failingWriter{}, f); err == nil {
			t.Errorf("%v: a failing writer went unreported", f)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteTablesSeparatesThem: each table as Write draws it, a blank
// line between two (so CSV readers see one record set per paragraph), and
// the first failure ends the stream.
func TestWriteTablesSeparatesThem(t *testing.T) {
	a := &Table{Header: [][]string{{"a"}}, Rows: [][]string{{"1"}}}
	b := &Table{Header: [][]string{{"b"}}, Rows: [][]string{{"2"}}}
	var out bytes.Buffer
	if err := WriteTables(&out, CSV, a, b); err != nil {
		t.Fatal(err)
	}
	if want := "a\n1\n\nb\n2\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if err := WriteTables(&out, JSON, a, b); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("JSON: err = %v, want ErrInvalidInput", err)
	}
}
