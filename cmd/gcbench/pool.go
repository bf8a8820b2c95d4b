package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gcbench/gcbench/internal/host"
	"github.com/gcbench/gcbench/internal/protocols/poolbench"
	"github.com/gcbench/gcbench/internal/termprogress"
	"github.com/gcbench/gcbench/render"
	"github.com/gcbench/gcbench/workerpool"
	"github.com/spf13/pflag"
)

const poolUsage = "usage: gcbench pool [flags]\n\n" +
	"The DedicatedThreadPool protocols: throughput (queue --items tiny items, then\n" +
	"wait for all) and latency (--round-trips sequential submit-and-wait), for each\n" +
	"backend and wake policy with per-item Enqueue and with EnqueueBatch, beside a\n" +
	"goroutine per item + WaitGroup. Medians of interleaved runs; speedup = the\n" +
	"goroutine baseline's time over the contender's. When the threads or native\n" +
	"backend runs, GOMAXPROCS is workers+1 unless --gomaxprocs says otherwise\n" +
	"(the host line shows it; why: docs/methodology.md).\n\nflags:\n"

// cmdPool runs the DedicatedThreadPool protocols (throughput and latency)
// for every backend, wake policy and enqueue API beside a goroutine per item.
func cmdPool(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("pool")
	var opt poolbench.Options
	var procs int
	var format render.Format
	registerPoolFlags(fs, &opt, &procs, &format)
	if done, err := parseFlags(fs, args, e.stdout, poolUsage); done {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if slices.Contains(opt.Backends, workerpool.Native) && !workerpool.NativeAvailable {
		return usagef("--backends native: this build has no native backend (it needs cgo, on Linux)")
	}
	if procs == 0 {
		procs = poolbench.Procs(opt)
	}
	if procs > 0 {
		// Process-wide, and set before any pool exists; the host line and
		// the report read it back. Restored on return, as run does.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	var clearProgress func()
	opt.Progress, clearProgress = termprogress.Line(e.stderr, "pool")
	rep, err := poolbench.Compare(ctx, opt)
	clearProgress()
	return writeProtocol(e, "pool", "the pool protocols", format, err, rep != nil, func() any { return rep },
		func(w io.Writer) error { return rep.Write(w, format, host.Describe(host.Probe()), opt.Protocols) })
}

func registerPoolFlags(fs *pflag.FlagSet, opt *poolbench.Options, procs *int, format *render.Format) {
	fs.Var(newIntValue(&opt.Items, poolbench.DefaultItems, 1, poolbench.MaxItems), "items", "items the throughput protocol queues before waiting for all")
	fs.Var(newIntValue(&opt.RoundTrips, poolbench.DefaultRoundTrips, 1, poolbench.MaxRoundTrips), "round-trips",
		"sequential submit-and-wait round trips of the latency protocol")
	fs.Var(newIntValue(&opt.Repetitions, poolbench.DefaultRepetitions, 1, poolbench.MaxRepetitions), "repetitions",
		"runs of each contender and protocol (interleaved)")
	fs.Var(newIntValue(&opt.Workers, runtime.GOMAXPROCS(0), 1, workerpool.MaxWorkers), "workers", "pool workers")
	fs.Var(newIntValue(procs, 0, 0, maxGOMAXPROCS), "gomaxprocs",
		"GOMAXPROCS for the run (0: workers+1 when the threads or native backend runs, else the runtime's default; why: docs/methodology.md)")
	opt.BatchSize = poolbench.DefaultBatchSize // before the flag, whose help shows it
	fs.Var(&batchSizeValue{&opt.BatchSize}, "batch-size", "items per EnqueueBatch call in the throughput protocol (-1: all in one call)")
	fs.Var(newListValue(&opt.Protocols, []poolbench.Protocol{poolbench.Throughput, poolbench.Latency}, poolbench.ParseProtocol,
		"throughput or latency"), "protocols", "protocols to run: throughput, latency")
	fs.Var(newListValue(&opt.Backends, []workerpool.Backend{workerpool.Goroutines, workerpool.Threads}, workerpool.ParseBackend,
		"goroutines, threads or native"), "backends", "pool backends: goroutines, threads, native (SGen's pool in C; needs a cgo build; no spin)")
	fs.Var(newListValue(&opt.Wakes, []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Signal, workerpool.Targeted, workerpool.Spin},
		workerpool.ParseWakePolicy, "broadcast, signal, targeted or spin"), "wakes", "wake policies: broadcast, signal, targeted, spin")
	fs.Var(formatValue{format}, "format", "output format: "+strings.Join(render.FormatNames(), ", "))
}

// batchSizeValue is --batch-size: -1 (every item in one call) or a count.
type batchSizeValue struct{ p *int }

func (v *batchSizeValue) Set(s string) error {
	n, err := boundedInt(-1, poolbench.MaxItems)(s)
	if err != nil || n == 0 {
		return fmt.Errorf("want -1 (all items in one call) or a count from 1 to %d", poolbench.MaxItems)
	}
	*v.p = n
	return nil
}

func (v *batchSizeValue) String() string { return strconv.Itoa(*v.p) }
func (v *batchSizeValue) Type() string   { return "int" }

// maxGOMAXPROCS bounds --gomaxprocs: one P per pool worker plus one for
// the submitting goroutine is the most a pool run can use.
const maxGOMAXPROCS = workerpool.MaxWorkers + 1
