package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/gcbench/gcbench/analysis/render"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/flagvalue"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/host"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/seeds/poolbench"
	"github.com/gcbench/gcbench/cmd/gcbench/internal/termprogress"
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
	if done, err := parseOnlyFlags(fs, args, e.stdout, poolUsage); done {
		return err
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
	fs.Var(flagvalue.NewInt(&opt.Items, poolbench.DefaultItems, 1, poolbench.MaxItems), "items", "items the throughput protocol queues before waiting for all")
	fs.Var(flagvalue.NewInt(&opt.RoundTrips, poolbench.DefaultRoundTrips, 1, poolbench.MaxRoundTrips), "round-trips",
		"sequential submit-and-wait round trips of the latency protocol")
	fs.Var(flagvalue.NewInt(&opt.Repetitions, poolbench.DefaultRepetitions, 1, poolbench.MaxRepetitions), "repetitions",
		"runs of each contender and protocol (interleaved)")
	fs.Var(flagvalue.NewInt(&opt.Workers, runtime.GOMAXPROCS(0), 1, workerpool.MaxWorkers), "workers", "pool workers")
	fs.Var(flagvalue.NewInt(procs, 0, 0, workerpool.MaxWorkers+1), "gomaxprocs",
		"GOMAXPROCS for the run (0: workers+1 when the threads or native backend runs, else the runtime's default; why: docs/methodology.md)")
	fs.Var(flagvalue.New(&opt.BatchSize, poolbench.DefaultBatchSize, "int", parseBatchSize), "batch-size", "items per EnqueueBatch call in the throughput protocol (-1: all in one call)")
	fs.Var(flagvalue.NewList(&opt.Protocols, []poolbench.Protocol{poolbench.Throughput, poolbench.Latency},
		flagvalue.OneOf(poolbench.ParseProtocol, poolbench.ProtocolNames())), "protocols",
		"protocols to run: "+strings.Join(poolbench.ProtocolNames(), ", "))
	fs.Var(flagvalue.NewList(&opt.Backends, []workerpool.Backend{workerpool.Goroutines, workerpool.Threads},
		flagvalue.OneOf(workerpool.ParseBackend, workerpool.BackendNames())), "backends", "pool backends: goroutines, threads, native (SGen's pool in C; needs a cgo build; no spin)")
	fs.Var(flagvalue.NewList(&opt.Wakes, []workerpool.WakePolicy{workerpool.Broadcast, workerpool.Signal, workerpool.Targeted, workerpool.Spin},
		flagvalue.OneOf(workerpool.ParseWakePolicy, workerpool.WakePolicyNames())), "wakes",
		"wake policies: "+strings.Join(workerpool.WakePolicyNames(), ", "))
	fs.Var(formatFlag(format), "format", "output format: "+strings.Join(render.FormatNames(), ", "))
}

// parseBatchSize reads --batch-size: -1 (every item in one call) or a
// count.
func parseBatchSize(s string) (int, error) {
	n, err := flagvalue.IntIn(-1, poolbench.MaxItems)(s)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("want -1 (all items in one call) or a count from 1 to %d", poolbench.MaxItems)
	}
	return n, nil
}
