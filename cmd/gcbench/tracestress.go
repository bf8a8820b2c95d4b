package main

import (
	"context"
	"io"
	"runtime"
	"strings"
	"time"

	"fmt"
	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/tracestress"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/termprogress"
	"github.com/gcbench/gcbench/heap"
	"github.com/gcbench/gcbench/internal/bytesize"
	"github.com/gcbench/gcbench/trace"
	"github.com/spf13/pflag"
)

const traceStressUsage = "usage: gcbench trace-stress [flags]\n\n" +
	"The EventPipe stress protocol: --writers threads write --payload-byte events\n" +
	"as fast as they can (after --write-cost of work each) into a trace session\n" +
	"with a --limit byte budget, while the session's reader streams them to a file;\n" +
	"the file is read back to check that every event written was read or counted\n" +
	"dropped. The table counts for --duration from the first dropped event, while\n" +
	"the writers write (the initial fill and the final drain left out). Each\n" +
	"iteration runs every policy, in alternating order. Lockless reserves buffer\n" +
	"budget with a CAS loop that fails without a lock; locked is the pre-fix design\n" +
	"(admission under the manager lock).\n" +
	"The defaults run EventPipe's protocol as dotnet/runtime#50797 measured it;\n" +
	"--iterations 10 --duration 60s is the seed's own length.\n\nflags:\n"

// stressFlags are trace-stress's flags beside its protocol's options.
type stressFlags struct {
	alloc  allocInLock
	procs  int
	format render.Format
}

// cmdTraceStress runs the EventPipe stress protocol with both buffer
// reservation policies, interleaved, and prints the seed's table.
func cmdTraceStress(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("trace-stress")
	var opt tracestress.Options
	var x stressFlags
	registerStressFlags(fs, &opt, &x)
	if done, err := parseOnlyFlags(fs, args, e.stdout, traceStressUsage); done {
		return err
	}
	if err := checkStressOptions(opt); err != nil {
		return err
	}
	opt.LocklessAllocInLock = bool(x.alloc)
	var clearProgress func()
	opt.Progress, clearProgress = termprogress.Line(e.stderr, "trace-stress")
	if x.procs == 0 {
		x.procs = tracestress.Procs(opt.Writers)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(x.procs)) // restored after the output, whose host line records procs

	res, err := tracestress.Compare(ctx, opt)
	clearProgress()
	measured := res != nil && len(res.Runs) > 0
	return writeProtocol(e, "trace-stress", "the stress protocol", x.format, err, measured, func() any { return res.Document() },
		func(w io.Writer) error { return res.Write(w, x.format, host.Describe(host.Probe()), bytesize.Format) })
}

// checkStressOptions refuses what the flags' own bounds cannot: a limit below
// the session's minimum, runs that would last too long.
func checkStressOptions(opt tracestress.Options) error {
	if limit := opt.Limit; limit < trace.MinLimit {
		return usagef("invalid argument %q for \"--limit\" flag: want at least %s", bytesize.Format(limit), bytesize.Format(trace.MinLimit))
	}
	if runs := int64(opt.Iterations) * int64(len(opt.Policies)); time.Duration(runs) > maxStressTotal/opt.Duration {
		return usagef("--duration %v × --iterations %d × %d policies is more than %v", opt.Duration, opt.Iterations, len(opt.Policies), maxStressTotal)
	}
	return nil
}

func registerStressFlags(fs *pflag.FlagSet, opt *tracestress.Options, x *stressFlags) {
	fs.Var(flagvalue.NewInt(&opt.Writers, tracestress.DefaultWriters, 1, tracestress.MaxWriters), "writers", "writers, each on an OS thread of its own, writing as fast as they can")
	fs.Var(flagvalue.NewInt(&opt.PayloadSize, tracestress.DefaultPayload, 1, trace.MaxPayload), "payload", "payload bytes per event")
	fs.Var(flagvalue.NewSize(&opt.Limit, trace.DefaultLimit, heap.AvailableMemory()), "limit", "session buffer limit (all buffers together)")
	fs.Var(flagvalue.NewDuration(&opt.Duration, tracestress.DefaultDuration, time.Millisecond, maxStressDuration), "duration", "how long each run counts, from the first dropped event (the writers write for the initial fill and then this long)")
	fs.Var(flagvalue.NewInt(&opt.Iterations, tracestress.DefaultIterations, 1, tracestress.MaxIterations), "iterations", "runs of each policy (interleaved)")
	fs.Var(flagvalue.NewList(&opt.Policies, []trace.Policy{trace.Lockless, trace.Locked}, flagvalue.OneOf(trace.ParsePolicy, trace.PolicyNames())), "policies",
		"reservation policies to compare: "+strings.Join(trace.PolicyNames(), ", "))
	fs.Var(flagvalue.NewEnum(&opt.Memory, trace.OffHeap, trace.ParseMemory, trace.MemoryNames()), "memory", "where buffers live: offheap (mmap) or goheap")
	fs.Var(flagvalue.NewEnum(&opt.Lock, trace.SpinLock, trace.ParseLockKind, trace.LockKindNames()), "lock",
		"the session's locks (the manager lock, and each writer's own): spin (CoreCLR's SpinLock, which guards EventPipe's: polls, then sched_yield; waiters stay runnable) or mutex (sync.Mutex: waiters park)")
	fs.Var(flagvalue.NewEnum(&opt.Reader, trace.EventPipeReader, trace.ParseReaderKind, trace.ReaderKindNames()), "reader",
		"the reader's protocol: eventpipe (EventPipe's: the manager lock per step, per drained buffer and per sequence point) or batch (twice per flush)")
	fs.Var(flagvalue.NewEnum(&x.alloc, true, parseAllocInLock, []string{"inside", "outside"}), "alloc",
		"where lockless allocates a reserved buffer: inside the manager lock (as dotnet/runtime#50797 was measured) or outside (as after #67936)")
	fs.Var(flagvalue.NewDuration(&opt.WriteCost, tracestress.DefaultWriteCost, 0, tracestress.MaxWriteCost), "write-cost",
		"CPU time each writer spends before every event, kept or dropped, standing in for EventPipe's managed stack walk")
	fs.Var(flagvalue.NewDuration(&opt.FlushInterval, trace.DefaultFlushInterval, time.Microsecond, time.Minute), "flush-interval",
		"the reader's pause after each flush (EventPipe: 100ms)")
	fs.Var(flagvalue.NewInt(&x.procs, 0, 0, tracestress.MaxWriters+2), "gomaxprocs",
		"GOMAXPROCS during the runs; 0 = auto: writers + reader + 1, so that every thread the kernel runs finds a P")
	fs.StringVar(&opt.Dir, "dir", "", "directory for the per-run trace files, each removed as soon as it is created and read through its open handle (default: the system temp dir)")
	fs.Var(formatFlag(&x.format), "format", "output format: "+strings.Join(render.FormatNames(), ", "))
}

// allocInLock is --alloc: whether lockless allocates a reserved buffer
// inside the manager lock ("inside") or outside it ("outside"), which is
// tracestress.Options.LocklessAllocInLock.
type allocInLock bool

func (a allocInLock) String() string {
	if a {
		return "inside"
	}
	return "outside"
}

// parseAllocInLock parses --alloc's two names; flagvalue.OneOf says which
// they are when it refuses one.
func parseAllocInLock(s string) (allocInLock, error) {
	switch s {
	case "inside":
		return true, nil
	case "outside":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither inside nor outside", s)
}

// Bounds of trace-stress's durations: a run, and all runs together.
const (
	maxStressDuration = time.Hour
	maxStressTotal    = 7 * 24 * time.Hour
)
