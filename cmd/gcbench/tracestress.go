package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gcbench/gcbench/analysis"
	"github.com/gcbench/gcbench/trace"
)

// cmdTraceStress runs the EventPipe stress protocol with both buffer
// reservation policies, interleaved, and prints the seed's table.
func cmdTraceStress(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("trace-stress")
	writers := fs.Int("writers", trace.DefaultStressWriters, "writer goroutines writing as fast as they can")
	payload := fs.Int("payload", trace.DefaultStressPayload, "payload bytes per event")
	var limit int64
	fs.Var(newSizeValue(&limit, trace.DefaultLimit, availableMemory()), "limit", "session buffer limit (all buffers together)")
	duration := fs.Duration("duration", trace.DefaultStressDuration, "how long the writers write in each run")
	iterations := fs.Int("iterations", trace.DefaultStressIters, "runs of each policy (interleaved)")
	policies := fs.StringSlice("policies", []string{"lockless", "locked"}, "reservation policies to compare: lockless, locked")
	memory := fs.String("memory", "offheap", "where buffers live: offheap (mmap) or goheap")
	lock := fs.String("lock", "mutex", "the manager lock: mutex (sync.Mutex, parks waiters) or spin (spins and yields, like EventPipe's)")
	flushEvery := fs.Duration("flush-interval", trace.DefaultFlushInterval, "the reader's pause after each flush (EventPipe: 100ms)")
	dir := fs.String("dir", "", "directory for the per-run trace files (default: the system temp dir)")
	var format analysis.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(analysis.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, stdout, "usage: gcbench trace-stress [flags]\n\n"+
		"The EventPipe stress protocol: --writers goroutines write --payload-byte events\n"+
		"as fast as they can for --duration into a trace session with a --limit byte\n"+
		"budget, while the session's reader streams them to a file; the file is read\n"+
		"back to count events read and dropped. Each iteration runs every policy, in\n"+
		"alternating order. Lockless reserves buffer budget with a CAS loop that fails\n"+
		"without a lock; locked is the pre-fix design (reservation under the manager lock).\n\nflags:\n"); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	opt := trace.StressOptions{Writers: *writers, PayloadSize: *payload, Limit: limit, Duration: *duration,
		Iterations: *iterations, FlushInterval: *flushEvery, Dir: *dir}
	switch {
	case *writers < 1:
		return usagef("--writers %d: want ≥ 1", *writers)
	case *payload < 1 || *payload > trace.MaxPayload:
		return usagef("--payload %d: want 1..%d", *payload, trace.MaxPayload)
	case limit < trace.MinLimit:
		return usagef("--limit %s: want at least %s", formatSize(limit), formatSize(trace.MinLimit))
	case *duration <= 0:
		return usagef("--duration %v: want > 0", *duration)
	case *iterations < 1:
		return usagef("--iterations %d: want ≥ 1", *iterations)
	case *flushEvery <= 0:
		return usagef("--flush-interval %v: want > 0", *flushEvery)
	}
	for _, name := range *policies {
		p, err := trace.ParsePolicy(name)
		if err != nil {
			return usagef("--policies: %q is not lockless or locked", name)
		}
		opt.Policies = append(opt.Policies, p)
	}
	if len(opt.Policies) == 0 {
		return usagef("--policies: name at least one policy")
	}
	m, err := trace.ParseMemory(*memory)
	if err != nil {
		return usagef("--memory: %q is not offheap or goheap", *memory)
	}
	opt.Memory = m
	if opt.Lock, err = trace.ParseLockKind(*lock); err != nil {
		return usagef("--lock: %q is not mutex or spin", *lock)
	}
	opt.Progress = newLineProgress(stderr, "trace-stress")

	res, err := trace.Stress(ctx, opt)
	if err != nil {
		return fmt.Errorf("running the stress protocol: %w", err)
	}
	return writeStress(stdout, format, res)
}

// stressReport is the JSON form of a trace-stress result.
type stressReport struct {
	Options  trace.StressOptions       `json:"options"`
	Policies map[string][]trace.Metric `json:"policies"`
	Ratio    *stressRatio              `json:"lockless_over_locked,omitempty"`
	Runs     []trace.StressRun         `json:"runs"`
	Elapsed  time.Duration             `json:"elapsed_ns"`
}

// stressRatio compares Lockless with Locked event throughput: the ratio of
// the means, and the median of the per-iteration ratios (each iteration
// ran both policies back to back).
type stressRatio struct {
	MeanRatio   float64 `json:"mean_ratio"`
	MedianRatio float64 `json:"median_paired_ratio"`
}

func ratioOf(res *trace.StressResult) *stressRatio {
	a, b := res.PolicyRuns(trace.Lockless), res.PolicyRuns(trace.Locked)
	if len(a) == 0 || len(a) != len(b) {
		return nil
	}
	var sa, sb float64
	paired := make([]float64, len(a))
	for i := range a {
		sa += a[i].EventThroughput()
		sb += b[i].EventThroughput()
		paired[i] = a[i].EventThroughput() / b[i].EventThroughput()
	}
	return &stressRatio{MeanRatio: sa / sb, MedianRatio: analysis.Summarize(paired).Median}
}

func writeStress(w io.Writer, f analysis.Format, res *trace.StressResult) error {
	o := res.Options
	ratio := ratioOf(res)
	if f == analysis.JSON {
		rep := stressReport{Options: o, Policies: map[string][]trace.Metric{}, Ratio: ratio, Runs: res.Runs, Elapsed: res.Elapsed}
		rep.Options.Progress = nil
		for _, p := range o.Policies {
			rep.Policies[p.String()] = res.Metrics(p)
		}
		return writeProtocolJSON(w, "trace-stress", rep)
	}
	header := []string{"", "Min", "Max", "Average", "Std Dev"}
	if f == analysis.CSV {
		header = append([]string{"policy"}, header...)
		header[1] = "metric"
	}
	var csvRows [][]string
	seen := map[trace.Policy]bool{}
	for _, p := range o.Policies {
		if seen[p] {
			continue
		}
		seen[p] = true
		var rows [][]string
		for _, m := range res.Metrics(p) {
			prec := 0
			if m.Unit == "%" || m.Unit == "s" {
				prec = 2
			}
			s := m.Spread
			row := []string{fmt.Sprintf("%s (%s)", m.Name, m.Unit), fmtFloat(s.Min, prec), fmtFloat(s.Max, prec), fmtFloat(s.Mean, prec), fmtFloat(s.StdDev, prec)}
			rows = append(rows, row)
			csvRows = append(csvRows, append([]string{p.String()}, row...))
		}
		if f == analysis.CSV {
			continue
		}
		title := fmt.Sprintf("gcbench trace-stress, policy %s: %d writers, %d-byte payloads, %s limit, %v per run, %d iterations, %s buffers, %s manager lock, flush every %v",
			p, o.Writers, o.PayloadSize, formatSize(o.Limit), o.Duration, o.Iterations, o.Memory, o.Lock, o.FlushInterval)
		if err := protocolTable(title, header, rows).Write(w, f); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if f == analysis.CSV {
		return (&analysis.Table{Header: [][]string{header}, Rows: csvRows}).Write(w, f)
	}
	if ratio != nil {
		fmt.Fprintf(w, "Lockless/Locked event throughput: %.2fx (ratio of means), %.2fx (median of per-iteration ratios); target ≥ 1.30x\n",
			ratio.MeanRatio, ratio.MedianRatio)
	}
	_, err := fmt.Fprintf(w, "total time %v\n", res.Elapsed.Round(time.Millisecond))
	return err
}
