package render

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gcbench/gcbench/analysis/report"
)

// BenchName is the benchmark name WriteBench gives every pause:
// "BenchmarkPause/mode=…/…".
const BenchName = "BenchmarkPause"

// WriteBench writes the pauses of every run of reports in the Go benchmark
// format (golang.org/x/perf/benchfmt, what `go test -bench` prints and
// benchstat reads): one line per timed collection, each collection one
// iteration of BenchName, in nanoseconds per op, for example
//
//	BenchmarkPause/mode=perjob/workers=8 1 2206000 ns/op
//
// The name holds the mode, then every configuration key whose value
// differs between the reports (a sweep's grid) and "workers", in the
// order of the scaling table; each run's other configuration is written
// before its lines as "key: value" lines (keys in lower case, spaces made
// hyphens, as the format wants) but BenchNoteKey, written as "# key =
// value" notes that benchstat does not group by, with goos, goarch, cpu, the host's
// GOMAXPROCS, and the host when the runs come from several. A run that stopped early
// carries a "partial" line. benchstat then compares two such files (or,
// with -col /mode, the modes of one) by medians and their intervals, not
// by the trimmed means of the seed's table.
func WriteBench(w io.Writer, reports ...*report.Report) error {
	type entry struct {
		r   *report.Report
		run *report.Run
	}
	var entries []entry
	for _, r := range reports {
		for i := range r.Runs {
			entries = append(entries, entry{r, &r.Runs[i]})
		}
	}
	if len(entries) == 0 {
		return fmt.Errorf("%w: no runs to write", ErrInvalidInput)
	}
	keys := benchNameKeys(reports)
	hosts := map[string]bool{}
	for _, e := range entries {
		hosts[e.run.Host.Label()] = true
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		for _, k := range keys {
			if c := report.OrderValues(a.r.Config.Value(k), b.r.Config.Value(k)); c != 0 {
				return c
			}
		}
		return 0
	})
	bw := bufio.NewWriter(w)
	var prev, prevNotes report.Config // the configuration in force, as written, and the comment lines
	for i, e := range entries {
		cfg := benchConfig(e.r, e.run, keys, len(hosts) > 1)
		notes := benchNotes(e.r, keys)
		if i == 0 || !slices.Equal(cfg, prev) || !slices.Equal(notes, prevNotes) {
			if i > 0 {
				bw.WriteString("\n")
			}
			for _, kv := range notes {
				fmt.Fprintf(bw, "# %s = %s (a note: benchstat compares runs that differ in it in one table)\n", kv.Key, oneLine(kv.Value))
			}
			prevNotes = notes
			for _, kv := range prev {
				if _, ok := cfg.Get(kv.Key); !ok {
					fmt.Fprintf(bw, "%s:\n", kv.Key) // an empty value ends a key
				}
			}
			for _, kv := range cfg {
				fmt.Fprintf(bw, "%s: %s\n", kv.Key, kv.Value)
			}
			prev = cfg
		}
		var suffix strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&suffix, "/%s=%s", benchNameValue(benchKey(k)), benchNameValue(e.r.Config.Value(k)))
		}
		for _, m := range e.run.Modes {
			name := BenchName + "/mode=" + benchNameValue(m.Name) + suffix.String()
			for _, p := range m.Pauses {
				fmt.Fprintf(bw, "%s 1 %d ns/op\n", name, PauseNanos(p))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render: writing benchmark format: %w", err)
	}
	return nil
}

// benchNameKeys are the configuration keys a benchmark name carries:
// those whose values differ between reports, and ScalingX if any report
// has it, ScalingX last, as the scaling table orders its keys.
func benchNameKeys(reports []*report.Report) []string {
	values := map[string]map[string]bool{}
	for _, r := range reports {
		for _, kv := range r.Config {
			if values[kv.Key] == nil {
				values[kv.Key] = map[string]bool{}
			}
			values[kv.Key][kv.Value] = true
		}
	}
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		missing := slices.ContainsFunc(reports, func(r *report.Report) bool { _, ok := r.Config.Get(k); return !ok })
		if k != report.ScalingX && (len(values[k]) > 1 || missing) {
			keys = append(keys, k)
		}
	}
	if values[report.ScalingX] != nil {
		keys = append(keys, report.ScalingX)
	}
	return keys
}

// benchConfig is the file configuration of one run's lines, in the
// order go test prints its own: goos, goarch, cpu, then the report's
// configuration but the keys in the name, in the report's order, then the
// host's GOMAXPROCS, the host's name if several hosts ran the reports, and
// whether the run is partial. These facts of the run are the format's
// own keys: a configuration key spelled as one of them is left out.
func benchConfig(r *report.Report, run *report.Run, nameKeys []string, several bool) report.Config {
	h := run.Host
	own := report.Config{{Key: "goos", Value: h.OS}, {Key: "goarch", Value: h.Arch}, {Key: "cpu", Value: h.CPUModel},
		{Key: "host-gomaxprocs"}, {Key: "host"}, {Key: "partial", Value: run.Partial}}
	if h.GOMAXPROCS > 0 {
		own[3].Value = strconv.Itoa(h.GOMAXPROCS)
	}
	if several {
		own[4].Value = h.Label()
	}
	var cfg report.Config
	add := func(kv report.Pair) {
		k, v := benchKey(kv.Key), strings.TrimSpace(oneLine(kv.Value))
		if _, dup := cfg.Get(k); !dup && v != "" { // an empty value would delete the key
			cfg = append(cfg, report.Pair{Key: k, Value: v})
		}
	}
	for _, kv := range own[:3] {
		add(kv)
	}
	for _, kv := range r.Config {
		if _, taken := own.Get(benchKey(kv.Key)); !taken && !slices.Contains(nameKeys, kv.Key) && kv.Key != BenchNoteKey {
			add(kv)
		}
	}
	for _, kv := range own[3:] {
		add(kv)
	}
	return cfg
}

// BenchNoteKey is the configuration key WriteBench writes as a note
// ("# seed = 1 …", a line benchfmt skips) rather than as configuration:
// benchstat splits its tables by every configuration key, and two runs
// that differ only in the mutator's seed are repetitions of one
// experiment, to be compared in one table.
const BenchNoteKey = "seed"

// benchNotes is r's BenchNoteKey pair, unless the benchmark name holds it.
func benchNotes(r *report.Report, nameKeys []string) report.Config {
	var notes report.Config
	for _, kv := range r.Config {
		if kv.Key == BenchNoteKey && !slices.Contains(nameKeys, kv.Key) {
			notes = append(notes, kv)
		}
	}
	return notes
}

// benchKey makes k a configuration key of the format: it must begin with
// a lower-case letter and hold no space, upper-case letter or colon.
func benchKey(k string) string {
	k = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r) || r == ':':
			return '-'
		case unicode.IsUpper(r):
			return unicode.ToLower(r)
		}
		return r
	}, k)
	if r := []rune(k); len(r) == 0 || !unicode.IsLower(r[0]) {
		k = "config-" + k
	}
	return k
}

// benchNameValue keeps v one part of a benchmark name's sub-name: a space
// would end the name, a "/" start another part, and a "-" followed by
// digits at the end of the name would read as its GOMAXPROCS suffix.
func benchNameValue(v string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' || r == '-' || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, v)
}
