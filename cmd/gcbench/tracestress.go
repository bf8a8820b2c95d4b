package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/internal/protocols/tracestress"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/trace"
)

// cmdTraceStress runs the EventPipe stress protocol with both buffer
// reservation policies, interleaved, and prints the seed's table.
func cmdTraceStress(ctx context.Context, e *env, args []string) error {
	stdout, stderr := e.stdout, e.stderr
	fs := newFlagSet("trace-stress")
	var opt tracestress.Options
	fs.Var(newIntValue(&opt.Writers, tracestress.DefaultWriters, 1, tracestress.MaxWriters), "writers", "writers, each on an OS thread of its own, writing as fast as they can")
	fs.Var(newIntValue(&opt.PayloadSize, tracestress.DefaultPayload, 1, trace.MaxPayload), "payload", "payload bytes per event")
	fs.Var(newSizeValue(&opt.Limit, trace.DefaultLimit, heap.AvailableMemory()), "limit", "session buffer limit (all buffers together)")
	fs.Var(newDurationValue(&opt.Duration, tracestress.DefaultDuration, time.Millisecond, maxStressDuration), "duration", "how long each run counts, from the first dropped event (the writers write for the initial fill and then this long)")
	fs.Var(newIntValue(&opt.Iterations, tracestress.DefaultIterations, 1, tracestress.MaxIterations), "iterations", "runs of each policy (interleaved)")
	fs.Var(newListValue(&opt.Policies, []trace.Policy{trace.Lockless, trace.Locked}, trace.ParsePolicy, "lockless or locked"), "policies",
		"reservation policies to compare: lockless, locked")
	fs.Var(newEnumValue(&opt.Memory, trace.OffHeap, trace.ParseMemory, "offheap or goheap"), "memory", "where buffers live: offheap (mmap) or goheap")
	fs.Var(newEnumValue(&opt.Lock, trace.SpinLock, trace.ParseLockKind, "spin or mutex"), "lock",
		"the session's locks (the manager lock, and each writer's own): spin (CoreCLR's SpinLock, which guards EventPipe's: polls, then sched_yield; waiters stay runnable) or mutex (sync.Mutex: waiters park)")
	fs.Var(newEnumValue(&opt.Reader, trace.EventPipeReader, trace.ParseReaderProtocol, "eventpipe or batch"), "reader",
		"the reader's protocol: eventpipe (EventPipe's: the manager lock per step, per drained buffer and per sequence point) or batch (twice per flush)")
	var alloc allocPlace
	fs.Var(newEnumValue(&alloc, true, parseAllocPlace, "inside or outside"), "alloc",
		"where lockless allocates a reserved buffer: inside the manager lock (as dotnet/runtime#50797 was measured) or outside (as after #67936)")
	fs.Var(newDurationValue(&opt.WriteCost, tracestress.DefaultWriteCost, 0, tracestress.MaxWriteCost), "write-cost",
		"CPU time each writer spends before every event, kept or dropped, standing in for EventPipe's managed stack walk")
	fs.Var(newDurationValue(&opt.FlushInterval, trace.DefaultFlushInterval, time.Microsecond, time.Minute), "flush-interval",
		"the reader's pause after each flush (EventPipe: 100ms)")
	var procs int
	fs.Var(newIntValue(&procs, 0, 0, tracestress.MaxWriters+2), "gomaxprocs",
		"GOMAXPROCS during the runs; 0 = auto: writers + reader + 1, so that every thread the kernel runs finds a P")
	fs.StringVar(&opt.Dir, "dir", "", "directory for the per-run trace files, each removed as soon as it is created and read through its open handle (default: the system temp dir)")
	var format render.Format
	fs.Var(formatValue{&format}, "format", "output format: "+strings.Join(render.FormatNames(), ", "))
	if done, err := parseFlags(fs, args, stdout, "usage: gcbench trace-stress [flags]\n\n"+
		"The EventPipe stress protocol: --writers threads write --payload-byte events\n"+
		"as fast as they can (after --write-cost of work each) into a trace session\n"+
		"with a --limit byte budget, while the session's reader streams them to a file;\n"+
		"the file is read back to check that every event written was read or counted\n"+
		"dropped. The table counts for --duration from the first dropped event, while\n"+
		"the writers write (the initial fill and the final drain left out). Each\n"+
		"iteration runs every policy, in alternating order. Lockless reserves buffer\n"+
		"budget with a CAS loop that fails without a lock; locked is the pre-fix design\n"+
		"(admission under the manager lock).\n"+
		"The defaults run EventPipe's protocol as dotnet/runtime#50797 measured it;\n"+
		"--iterations 10 --duration 60s is the seed's own length.\n\nflags:\n"); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	opt.LocklessAllocInLock = bool(alloc)
	if limit := opt.Limit; limit < trace.MinLimit {
		return usagef("invalid argument %q for \"--limit\" flag: want at least %s", bytesize.Format(limit), bytesize.Format(trace.MinLimit))
	}
	if runs := int64(opt.Iterations) * int64(len(opt.Policies)); time.Duration(runs) > maxStressTotal/opt.Duration {
		return usagef("--duration %v × --iterations %d × %d policies is more than %v", opt.Duration, opt.Iterations, len(opt.Policies), maxStressTotal)
	}
	var clearProgress func()
	opt.Progress, clearProgress = newLineProgress(stderr, "trace-stress")
	if procs == 0 {
		procs = stressProcs(opt.Writers)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs)) // restored after the output, whose host line records procs

	res, err := tracestress.Compare(ctx, opt)
	clearProgress()
	if fatal := protocolFailure(err, res != nil && len(res.Runs) > 0, "the stress protocol"); fatal != nil {
		return fatal
	}
	// A cancelled run still shows the iterations it finished.
	return joinErrors(err, writeStress(stdout, format, res))
}

// allocPlace is --alloc: whether lockless allocates inside the manager
// lock.
type allocPlace bool

func (a allocPlace) String() string {
	if a {
		return "inside"
	}
	return "outside"
}

func parseAllocPlace(s string) (allocPlace, error) {
	switch s {
	case "inside":
		return true, nil
	case "outside":
		return false, nil
	}
	return false, fmt.Errorf("alloc %q (want inside or outside)", s)
}

// stressProcs is trace-stress's automatic GOMAXPROCS: a P for every writer
// thread and the reader's, plus one, as run sets workers+1 for its Threads
// backend. Writers and reader are goroutines locked to OS threads, and a
// locked thread still needs a P to run Go code: with fewer Ps than threads,
// a thread the kernel wakes may first wait for a P, and the Go runtime,
// not the kernel, would decide who runs.
func stressProcs(writers int) int { return writers + 2 }

// Bounds of trace-stress's durations: a run, and all runs together.
const (
	maxStressDuration = time.Hour
	maxStressTotal    = 7 * 24 * time.Hour
)

// stressReport is the JSON form of a trace-stress result.
type stressReport struct {
	Options  tracestress.Options       `json:"options"`
	Policies map[string][]stressMetric `json:"policies"`
	Ratio    *tracestress.Ratio        `json:"lockless_over_locked,omitempty"`
	Runs     []tracestress.Run         `json:"runs"`
	Elapsed  time.Duration             `json:"elapsed_ns"`
	Partial  bool                      `json:"partial,omitempty"`
}

// stressMetric is a metric's JSON form: the seed table's columns, under
// the names trace-stress has always written.
type stressMetric struct {
	Name, Unit string
	Spread     stressSpread
}

type stressSpread struct{ Min, Max, Mean, StdDev float64 }

// stressMetrics is the JSON form of one policy's metrics.
func stressMetrics(res *tracestress.Result, p trace.Policy) []stressMetric {
	var out []stressMetric
	for _, m := range res.Metrics(p) {
		s := m.Summary
		out = append(out, stressMetric{Name: m.Name, Unit: m.Unit, Spread: stressSpread{s.Min, s.Max, s.Mean, s.Stdev}})
	}
	return out
}

func writeStressJSON(w io.Writer, res *tracestress.Result) error {
	rep := stressReport{Options: res.Options, Policies: map[string][]stressMetric{}, Ratio: res.LocklessOverLocked(),
		Runs: res.Runs, Elapsed: res.Elapsed, Partial: res.Partial}
	rep.Options.Progress = nil
	for _, p := range res.Options.Policies {
		rep.Policies[p.String()] = stressMetrics(res, p)
	}
	return writeProtocolJSON(w, "trace-stress", rep)
}

// writeStress writes the seed's table for each policy (in CSV, one table
// with a policy column), then the policies' ratio.
func writeStress(w io.Writer, f render.Format, res *tracestress.Result) error {
	if f == render.JSON {
		return writeStressJSON(w, res)
	}
	header := []string{"", "Min", "Max", "Average", "Std Dev"}
	if f == render.CSV {
		var rows [][]string
		for _, p := range res.Options.Policies {
			for _, row := range stressRows(res, p) {
				rows = append(rows, append([]string{p.String()}, row...))
			}
		}
		if ratio := res.LocklessOverLocked(); ratio != nil { // the text's ratio line, as rows whose Average is the ratio
			rows = append(rows,
				[]string{"lockless/locked", "event throughput, ratio of means", "", "", fmtFloat(ratio.MeanRatio, 2), ""},
				[]string{"lockless/locked", "event throughput, median of per-iteration ratios", "", "", fmtFloat(ratio.MedianRatio, 2), ""},
				[]string{"lockless/locked", "events read, median of per-iteration ratios", "", "", fmtFloat(ratio.ReadMedianRatio, 2), ""})
		}
		header = append([]string{"policy", "metric"}, header[1:]...)
		t := &render.Table{Header: [][]string{header}, Rows: rows}
		if res.Partial {
			t.Facts = append(t.Facts, render.Fact{Key: "PARTIAL", Value: fmt.Sprintf("stopped: %d of %d runs finished",
				len(res.Runs), len(res.Options.Policies)*res.Options.Iterations), Warning: true})
		}
		return t.Write(w, f)
	}
	for _, p := range res.Options.Policies {
		if err := stressTable(res, p, header).Write(w, f); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, line := range stressPerRun(res) {
		fmt.Fprintln(w, line)
	}
	if ratio := res.LocklessOverLocked(); ratio != nil {
		fmt.Fprintf(w, "Lockless/Locked events read: %.2fx (median of per-iteration ratios); event throughput: %.2fx (ratio of means), %.2fx (median of per-iteration ratios); target ≥ %.2fx\n",
			ratio.ReadMedianRatio, ratio.MeanRatio, ratio.MedianRatio, stressTarget)
		if min(ratio.ReadMedianRatio, ratio.MedianRatio) < stressTarget {
			fmt.Fprintln(w, stressShortfall(res))
		}
	} else if len(res.PolicyRuns(trace.Locked)) > 0 && len(res.PolicyRuns(trace.Lockless)) == len(res.PolicyRuns(trace.Locked)) {
		fmt.Fprintln(w, "Lockless/Locked events read: no ratio, a Locked run counted no event read (a run too short for a flush to end while the writers wrote)")
	}
	_, err := fmt.Fprintf(w, "total time %v\n", res.Elapsed.Round(time.Millisecond))
	return err
}

// stressTarget is the Lockless/Locked ratio the seed's fix reached or
// exceeded (EventPipe measured 1.2–1.8x).
const stressTarget = 1.2

// stressPerRun is one line per policy with each run's reader CPU share and
// manager-lock acquisitions per flush, in run order: the figures that say
// whether the reader was in the writers' caravan (many acquisitions per
// flush) and whether it got the CPU it asked for.
func stressPerRun(res *tracestress.Result) []string {
	var lines []string
	for _, p := range res.Options.Policies {
		var cpu, locks []string
		for _, run := range res.PolicyRuns(p) {
			cpu = append(cpu, fmtFloat(run.Counted.ReaderCPUShare(), 1))
			locks = append(locks, fmtFloat(run.Counted.ReaderLocksPerFlush(), 1))
		}
		if len(cpu) > 0 {
			lines = append(lines, fmt.Sprintf("%s, each run while the writers wrote: reader CPU share %s%% of one CPU; reader manager-lock acquisitions per flush %s",
				p, strings.Join(cpu, ", "), strings.Join(locks, ", ")))
		}
	}
	return lines
}

// stressShortfall explains a ratio below the target with what was
// measured, each policy's medians: the reader thread's CPU share and drain
// rate, flushes made and asked, and the writers' manager-lock wait. Event
// throughput is the reader's drain — writers refill the budget as soon as
// a flush frees it — so these are the figures that say where it went: a
// reader short of CPU (fewer CPUs than writer threads), a slow drain, or
// writers queued on the lock.
func stressShortfall(res *tracestress.Result) string {
	var parts []string
	for _, p := range res.Options.Policies {
		m := res.Medians(p)
		parts = append(parts, fmt.Sprintf("%s: reader thread %.0f%% of one CPU, %.0f manager-lock acquisitions per flush, drain %.0f MB/s of flush time, %.0f of %.0f flushes asked, %.2f s waited for the manager lock",
			p, m["Reader CPU share"], m["Reader lock acquisitions per flush"], m["Reader drain rate"]/1e6, m["Reader flushes made"], m["Reader flushes asked"], m["Manager lock wait time"]))
	}
	return fmt.Sprintf("below target on %d CPUs with %d writer threads (medians) — %s. Writers refill the budget as soon as a flush frees it, so event throughput is the reader's drain.",
		runtime.NumCPU(), res.Options.Writers, strings.Join(parts, "; "))
}

// stressLockName labels a lock kind in a table's title.
func stressLockName(k trace.LockKind) string {
	switch k {
	case trace.SpinLock:
		return "spin (CoreCLR SpinLock)"
	case trace.MutexLock:
		return "mutex (sync.Mutex)"
	}
	return k.String()
}

// stressRows are one policy's rows of the seed's table: each metric's
// Min, Max, Average and Std Dev over the policy's runs.
func stressRows(res *tracestress.Result, p trace.Policy) [][]string {
	var rows [][]string
	for _, m := range res.Metrics(p) {
		prec := 0
		if strings.HasPrefix(m.Unit, "%") || m.Unit == "s" || strings.HasPrefix(m.Unit, "s,") { // shares and seconds, whatever follows
			prec = 2
		}
		s := m.Summary
		rows = append(rows, []string{fmt.Sprintf("%s (%s)", m.Name, m.Unit),
			fmtFloat(s.Min, prec), fmtFloat(s.Max, prec), fmtFloat(s.Mean, prec), fmtFloat(s.Stdev, prec)})
	}
	return rows
}

// stressTable is one policy's table, titled with the run's configuration.
func stressTable(res *tracestress.Result, p trace.Policy, header []string) *render.Table {
	o := res.Options
	alloc := ""
	if p == trace.Lockless {
		alloc = ", allocation " + allocPlace(o.LocklessAllocInLock).String() + " the lock"
	}
	title := fmt.Sprintf("gcbench trace-stress, policy %s%s: %d writers, %d-byte payloads, %v of work per event, %s limit, %v per run, %d iterations, %s buffers, %s locks, %s reader, flush every %v",
		p, alloc, o.Writers, o.PayloadSize, o.WriteCost, bytesize.Format(o.Limit), o.Duration, o.Iterations, o.Memory, stressLockName(o.Lock), o.Reader, o.FlushInterval)
	t := protocolTable(title, header, stressRows(res, p))
	t.Notes = []string{"Counted while the writers wrote: from the first dropped event (the initial fill left out) to the stop (the final drain left out).",
		"Std Dev: the sample standard deviation (n − 1), as in every gcbench table; the seed's table divides by n."}
	if res.Partial {
		t.Facts = append(t.Facts, render.Fact{Key: "PARTIAL", Value: fmt.Sprintf("stopped: %d of this policy's %d runs finished",
			len(res.PolicyRuns(p)), o.Iterations), Warning: true})
	}
	return t
}
